/* The laws stage of cm_step (stage 4): solver rows from the contacts and joints. */
#ifndef CM_CONTACT_H
#define CM_CONTACT_H

#include "comply/data.h"

/* stage 4, laws: one row per compliant contact, per contact_time pair and per stretched joint,
 * into the data's row list (laws.c, with law_area_compliant.c and law_contact_time.c) */
void cm_stage_laws(const cmModel* m, cmData* d);

#endif
