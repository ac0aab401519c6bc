// rocport_helper_functions.h: added by `rocport port` in place of the CUDA samples'
// helper_functions.h, which the project includes from the CUDA SDK (it is not part of the
// project's tree): its string and timer helpers (helper_image.h's PGM/PPM functions are not here).
#ifndef ROCPORT_HELPER_FUNCTIONS_H
#define ROCPORT_HELPER_FUNCTIONS_H

#include "rocport_helper_string.h"
#include "rocport_helper_timer.h"

#endif  // ROCPORT_HELPER_FUNCTIONS_H
