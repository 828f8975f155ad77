#ifndef KB_SCALE
#define KB_SCALE 1.0
#endif
