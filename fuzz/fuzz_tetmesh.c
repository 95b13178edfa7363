/* libFuzzer harness of the tet mesh readers: see fuzz_targets.h and README.md. */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_targets.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return cm_fuzz_tetmesh(data, size);
}
