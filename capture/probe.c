/* probe.c - `kifucam probe`: lists the cameras and what they offer, and measures the frame rate a
 * source really delivers (through the same read path the recorder uses). */
#define _GNU_SOURCE
#include "capture/capture_internal.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Opens uri and reads it for `seconds`, printing the measured rate. */
static int measure(const char *uri, const cap_params_t *params, double seconds, FILE *f, char *err,
                   size_t errlen) {
    cap_source_t *src = NULL;
    cap_stats_t st;
    cap_frame_t fr;
    int64_t start, first_ts = -1, last_ts = -1, end;
    uint64_t n = 0, again = 0, gone = 0, other = 0;
    int rc, nsz = 0;
    struct {
        int w, h;
        uint64_t n;
    } sz[8]; /* the frame sizes seen (a folder of images may mix them), in order of first sight */

    rc = cap_source_open(uri, params, &src);
    if (rc != 0) {
        snprintf(err, errlen, "%s", cap_errmsg(src));
        cap_source_close(src);
        return rc;
    }
    fprintf(f, "  opened: %s\n", cap_source_describe(src));
    start = capi_now_us();
    end = start + (int64_t)(seconds * 1e6);
    while (capi_now_us() < end) {
        rc = cap_source_read(src, &fr);
        if (rc == 0) {
            if (first_ts < 0)
                first_ts = fr.ts_us;
            last_ts = fr.ts_us;
            int i = 0;
            while (i < nsz && (sz[i].w != fr.image.width || sz[i].h != fr.image.height))
                i++;
            if (i == nsz && nsz < 8) {
                sz[nsz].w = fr.image.width;
                sz[nsz].h = fr.image.height;
                sz[nsz++].n = 0;
            }
            if (i < nsz)
                sz[i].n++;
            else
                other++;
            n++;
        } else if (rc == CAP_AGAIN) {
            again++;
        } else if (rc == CAP_E_NODEV) {
            gone++;
        } else if (rc == CAP_EOF) {
            break;
        } else {
            snprintf(err, errlen, "%s", cap_errmsg(src));
            cap_source_close(src);
            return rc;
        }
    }
    cap_source_stats(src, &st);
    fprintf(f, "  measured: %llu frames", (unsigned long long)n);
    if (nsz == 1)
        fprintf(f, " %dx%d", sz[0].w, sz[0].h);
    for (int i = 0; nsz > 1 && i < nsz; i++) /* mixed sizes: each with its count */
        fprintf(f, "%s%dx%d (%llu)", i ? ", " : " of sizes ", sz[i].w, sz[i].h, (unsigned long long)sz[i].n);
    if (other)
        fprintf(f, ", others (%llu)", (unsigned long long)other);
    fprintf(f, " in %.2f s of wall time", (double)(capi_now_us() - start) / 1e6);
    if (n >= 2 && last_ts > first_ts)
        fprintf(f, ", %.3f fps by the source's timestamps",
                (double)(n - 1) * 1e6 / (double)(last_ts - first_ts));
    fprintf(f, "\n  dropped %llu, corrupt %llu, decoded with warnings %llu, timeouts %llu, lost %llu times\n",
            (unsigned long long)st.dropped, (unsigned long long)st.corrupt, (unsigned long long)st.warnings,
            (unsigned long long)again, (unsigned long long)gone);
    /* a file whose frames end before the duration it states (cut short, damaged): said as record says it */
    if (rc == CAP_EOF && cap_errmsg(src)[0]) {
        const char *m = cap_errmsg(src), *sep = strstr(m, ": ");
        fprintf(f, "  warning: %s\n", strncmp(m, "cap_", 4) == 0 && sep ? sep + 2 : m); /* no function name */
    }
    cap_source_close(src);
    return 0;
}

static int is_video_name(const char *n) {
    const char *p = n + 5;
    if (strncmp(n, "video", 5) != 0 || !*p)
        return 0;
    for (; *p; p++)
        if (*p < '0' || *p > '9')
            return 0;
    return 1;
}

static int cmp_name(const void *a, const void *b) {
    const char *x = *(char *const *)a, *y = *(char *const *)b;
    size_t lx = strlen(x), ly = strlen(y);
    return lx != ly ? (lx < ly ? -1 : 1) : strcmp(x, y);
}

int cap_probe(const char *uri, const cap_params_t *params, double seconds, void *fp, char *err,
              size_t errlen) {
    FILE *f = fp;
    char path[300], e2[CAPI_ERRLEN];
    int rc;

    if (err && errlen)
        err[0] = 0;
    if (!(seconds > 0) || !f) {
        capi_fmt_err(err, errlen, "cap_probe", "bad argument");
        return CAP_E_ARG;
    }
    if (uri) {
        const char *p = strncmp(uri, "v4l2:", 5) == 0 ? uri + 5 : uri;
        size_t q = strcspn(p, "?");
        if (strncmp(uri, "v4l2:", 5) == 0 || strncmp(p, "/dev/", 5) == 0) {
            snprintf(path, sizeof path, "%.*s", (int)q, p);
            if (p[q] == '?' && (rc = capi_check_query(p + q + 1, err, errlen)) != 0)
                return rc;
            if (!path[0]) {
                capi_fmt_err(err, errlen, "cap_probe", "no device path in '%.80s' (v4l2:/dev/videoN)", uri);
                return CAP_E_ARG;
            }
            if ((rc = cap_v4l2_list(path, f, err, errlen)) != 0)
                return rc;
        }
        return measure(uri, params, seconds, f, err, errlen);
    } else {
        DIR *d = opendir("/dev");
        struct dirent *de;
        char **names = NULL;
        size_t n = 0, i, found = 0;
        if (d) {
            while ((de = readdir(d)) != NULL) {
                char **nn;
                if (!is_video_name(de->d_name))
                    continue;
                if ((nn = realloc(names, (n + 1) * sizeof *nn)) != NULL)
                    names = nn;
                if (!nn || !(names[n] = strdup(de->d_name))) {
                    for (i = 0; i < n; i++)
                        free(names[i]);
                    free(names);
                    closedir(d);
                    capi_fmt_err(err, errlen, "cap_probe", "out of memory");
                    return CAP_E_NOMEM;
                }
                n++;
            }
            closedir(d);
        }
        qsort(names, n, sizeof *names, cmp_name);
        for (i = 0; i < n; i++) {
            snprintf(path, sizeof path, "/dev/%s", names[i]);
            if (cap_v4l2_list(path, f, e2, sizeof e2) == 0) {
                found++;
                if (measure(path, params, seconds, f, e2, sizeof e2) != 0)
                    fprintf(f, "  cannot capture: %s\n", e2);
            } else {
                fprintf(f, "%s: skipped (%s)\n", path, e2);
            }
            free(names[i]);
        }
        free(names);
        if (!found) {
            capi_fmt_err(err, errlen, "cap_probe", "no camera found (no usable /dev/video* device)");
            return CAP_E_NOTFOUND;
        }
        return 0;
    }
}
