"""Counts, in the real game records of ../shared/data/kifu, how often a piece that could promote did
not: the source of the tracker's nopromo_penalty (recorder/tracker/tracker.h). Each record is read by
`kifucam convert IN - --to usi` (so only records kifucam reads count) and replayed on a plain board.
A promotion is "available" when a pawn, lance, knight, silver, bishop or rook starts or ends its move
in the mover's promotion zone (FESA 3.2) and the move is not one that must promote (a pawn or lance
to the last rank, a knight to the last two).

usage: /usr/bin/python3 scripts/promotion_prior.py [KIFUCAM] [KIFU_DIR]
"""
import glob
import math
import os
import subprocess
import sys

EXTS = ('kif', 'kifu', 'ki2', 'csa', 'jkf', 'usi', 'sfen')
EVEN = 'lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL'


def board_of(sfen):
    board = {}
    for r, row in enumerate(sfen.split('/')):
        f, pro = 9, ''
        for ch in row:
            if ch == '+':
                pro = '+'
            elif ch.isdigit():
                f -= int(ch)
            else:
                board[(f, r + 1)] = pro + ch
                f, pro = f - 1, ''
    return board


def count_game(toks, avail, kept):
    if toks[1] == 'sfen':
        board, side, rest = board_of(toks[2]), toks[3], toks[6:]
    else:
        board, side, rest = board_of(EVEN), 'b', toks[2:]
    if rest and rest[0] == 'moves':
        rest = rest[1:]
    for m in rest:
        if len(m) < 4 or not (m[0].isdigit() or m[1] == '*'):
            break
        to = (int(m[2]), ord(m[3]) - 96)
        if m[1] == '*':
            board[to] = m[0] if side == 'b' else m[0].lower()
        else:
            fr = (int(m[0]), ord(m[1]) - 96)
            p = board.pop(fr, None)
            if p is None:
                break
            k = p.upper()
            in_zone = (lambda r: r <= 3) if side == 'b' else (lambda r: r >= 7)
            far = to[1] if side == 'b' else 10 - to[1]  # 1 = the last rank
            must = (k in ('P', 'L') and far == 1) or (k == 'N' and far <= 2)
            if k in ('P', 'L', 'N', 'S', 'B', 'R') and (in_zone(fr[1]) or in_zone(to[1])) and not must:
                avail[k] = avail.get(k, 0) + 1
                if not m.endswith('+'):
                    kept[k] = kept.get(k, 0) + 1
            board[to] = '+' + p if m.endswith('+') else p
        side = 'w' if side == 'b' else 'b'


def main():
    kifucam = sys.argv[1] if len(sys.argv) > 1 else 'build/kifucam'
    root = sys.argv[2] if len(sys.argv) > 2 else '../shared/data/kifu'
    files = sorted(f for f in glob.glob(os.path.join(root, '**', '*'), recursive=True)
                   if os.path.isfile(f) and f.rsplit('.', 1)[-1].lower() in EXTS)
    avail, kept, games = {}, {}, 0
    for f in files:
        r = subprocess.run([kifucam, 'convert', f, '-', '--to', 'usi'], capture_output=True, text=True)
        if r.returncode:
            continue
        for line in r.stdout.splitlines():
            if line.startswith('position'):
                count_game(line.split(), avail, kept)
                games += 1
    print(f'{games} games')
    print('piece  promotion available  not promoted')
    for k in ('P', 'L', 'N', 'S', 'B', 'R'):
        print(f'{k:5}  {avail.get(k, 0):19}  {kept.get(k, 0):12}')
    a = sum(avail.get(k, 0) for k in 'PBR')
    n = sum(kept.get(k, 0) for k in 'PBR')
    if a and n:
        print(f'P, B, R: {n} of {a} not promoted ({100 * n / a:.2f} %), log odds {math.log((a - n) / n):.1f} nats')


if __name__ == '__main__':
    main()
