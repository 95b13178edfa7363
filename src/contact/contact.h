/* The laws stage of cm_step (stage 4): solver rows from the contacts and joints. */
#ifndef CM_CONTACT_H
#define CM_CONTACT_H

#include "comply/data.h"
#include "model/rows.h"

/* stage 4, laws: one row per compliant contact, per contact_time pair and per stretched joint,
 * into the data's row list, for a sub-step of length h (s; the effective damping of a row
 * depends on it) (laws.c, with law_area_compliant.c and law_contact_time.c) */
void cm_stage_laws(const cmModel* m, cmData* d, double h);

/* the row of joint j at sub-step h into *r: 1 if the joint acts (stretched beyond its play), 0
 * if not. With dir (unit, world) the row is built along dir at zero stretch, whatever the
 * joint's state (the stability check before a run). (laws.c) */
int cm_joint_row(const cmModel* m, const cmData* d, int j, const double dir[3], double h, cmRow* r);

/* tests: nonzero makes the laws stage find no memory for the lookup of the edge-edge contacts'
 * birth offsets (laws.c, Births: the rows then take none and a contact_limit warning is
 * counted), a path a small scene's scratch never reaches */
extern int cm_laws_births_nomem;

#endif
