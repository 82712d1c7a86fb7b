/* strerror.c - names of the recorder's return codes (recorder/recorder.h). */
#include "recorder/recorder.h"

const char *rec_strerror(int rc) {
    switch (rc) {
    case REC_OK: return "REC_OK";
    case REC_EPARSE: return "REC_EPARSE";
    case REC_EINVALID: return "REC_EINVALID";
    case REC_EFULL: return "REC_EFULL";
    case REC_ERANGE: return "REC_ERANGE";
    case REC_ENOMEM: return "REC_ENOMEM";
    case REC_ESTATE: return "REC_ESTATE";
    case REC_EIO: return "REC_EIO";
    case REC_ESOURCE: return "REC_ESOURCE";
    case REC_ENOBOARD: return "REC_ENOBOARD";
    case REC_EMODEL: return "REC_EMODEL";
    case REC_EVISION: return "REC_EVISION";
    case REC_KIFU_EPARSE: return "REC_KIFU_EPARSE";
    case REC_KIFU_ENCODING: return "REC_KIFU_ENCODING";
    case REC_KIFU_ENOMEM: return "REC_KIFU_ENOMEM";
    case REC_KIFU_EIO: return "REC_KIFU_EIO";
    case REC_KIFU_EARG: return "REC_KIFU_EARG";
    case REC_KIFU_EMOVE: return "REC_KIFU_EMOVE";
    default: return "REC_E?";
    }
}
