#!/bin/sh
# make-passwd.sh PASSWD_FILE CRED_DIR BOARD... - a mosquitto password file with a random password for
# user "hall" and one per board, and CRED_DIR/BOARD.cred ("user:password", mode 600) for each recorder
# (KIFUCAM_MQTT_CREDENTIALS) and CRED_DIR/hall.cred for the hall.
set -eu
passwd=$1; dir=$2; shift 2
umask 077
mkdir -p "$dir"
: >"$passwd"
for u in hall "$@"; do
    pw=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
    mosquitto_passwd -b "$passwd" "$u" "$pw"
    printf '%s:%s\n' "$u" "$pw" >"$dir/$u.cred"
done
echo "$passwd: hall and $# boards; credentials in $dir/"
