/* comply: compliant contact simulation of rigid bodies. Umbrella header.
 *
 *   cmScene* s; cmModel* m; char err[512];
 *   cm_scene_load("scene.yaml", &s, err, sizeof err);
 *   cm_model_compile(s, &m, err, sizeof err);
 *   cmData* d = cm_data_new(m);
 *   for (long i = 0; i < m->opt.steps; i++) cm_step(m, d);
 */
#ifndef COMPLY_COMPLY_H
#define COMPLY_COMPLY_H

#include "comply/core.h"
#include "comply/mesh.h"
#include "comply/scene.h"
#include "comply/model.h"
#include "comply/data.h"
#include "comply/fields.h"
#include "comply/io.h"
#include "comply/law.h"
#include "comply/advise.h"

#endif
