/* After the first step, cm_step performs no heap allocation: 1,000 free bodies for 1,000 steps
 * with a counting allocator installed through cm_set_allocator. */
#include <stdlib.h>

#include "comply/comply.h"
#include "test.h"
#include "test_alloc.h"


static void test_no_alloc_in_step(void) {
  cmAllocator a = {count_malloc, count_realloc, count_free, NULL};
  cm_set_allocator(&a);
  char err[512], name[32];
  cmScene* s = cm_scene_new("thousand");
  for (int i = 0; i < 1000; i++) {
    cmBodyDef b = cm_body_def_default();
    snprintf(name, sizeof name, "b%d", i);
    b.name = name;
    b.geom.type = i % 2 ? CM_GEOM_SPHERE : CM_GEOM_BOX;
    b.geom.radius = 0.05;
    b.geom.refine = 1;
    b.geom.size[0] = b.geom.size[1] = b.geom.size[2] = 0.1;
    b.position[0] = i;
    b.angular_velocity[0] = 0.01 * i;
    b.angular_velocity[1] = 1;
    CHECK(cm_scene_add_body(s, &b, err, sizeof err) == i);
  }
  cmModel* m = NULL;
  CHECK(cm_model_compile(s, &m, err, sizeof err) == CM_OK);
  cm_scene_free(s);
  if (!m) return;
  CHECK(t_nalloc > 0); /* the hook is really in use */
  cmData* d = cm_data_new(m);
  CHECK(cm_step(m, d) == CM_OK);
  long before = t_nalloc;
  for (int i = 1; i < 1000; i++) cm_step(m, d);
  CHECK(t_nalloc == before);
  printf("  allocations during steps 2..1000: %ld\n", t_nalloc - before);
  cm_data_free(d);
  cm_model_free(m);
  cm_set_allocator(NULL);
}

int main(void) {
  RUN(test_no_alloc_in_step);
  return test_report();
}
