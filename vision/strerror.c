/* strerror.c - names of the vision module's return codes (vision.h). */
#include "vision/vision.h"

const char *vis_strerror(int rc) {
    switch (rc) {
    case VIS_OK: return "VIS_OK";
    case VIS_E_ARG: return "VIS_E_ARG";
    case VIS_E_NOMEM: return "VIS_E_NOMEM";
    case VIS_E_CV: return "VIS_E_CV";
    case VIS_E_IO: return "VIS_E_IO";
    case VIS_E_MODEL: return "VIS_E_MODEL";
    default: return "VIS_E?";
    }
}
