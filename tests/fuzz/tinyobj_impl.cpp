// tinyobjloader's parser compiled into the fuzz targets (instrumented), from the
// header of Debian's libtinyobjloader-dev: the same version the d2tsim build links.
#define TINYOBJLOADER_IMPLEMENTATION
#include <tiny_obj_loader.h>
