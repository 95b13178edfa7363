/* comply: the field lists of cmModel and cmData (X-macros, as MuJoCo's mjxmacro.h).
 *
 * Every field of cmModel (model.h) and of cmData (data.h) is in exactly one list below. The
 * library generates from the lists the code that allocates, frees, copies, hashes, saves and
 * rolls back the fields (docs/architecture.md, "Field lists"), so a field added to a list is
 * handled everywhere, and unit/test_fields fails on a struct field that is in no list. Tools and
 * bindings can walk the arrays in the same way:
 *
 *   #define PRINT(type, name, rows, cols) printf("%s %d x %d\n", #name, m->rows, (int)(cols));
 *   CM_MODEL_ARRAYS(PRINT)
 *   #undef PRINT
 *
 * Row shapes:
 *   X(type, name)                   a scalar field `type name`
 *   X(type, name, count)            a fixed-size array field `type name[count]`
 *   X(type, name, rows, cols)       an array field `type* name` of rows x cols elements, row-major;
 *                                   `rows` names the size field of cmModel that counts the rows
 *                                   (m->rows), `cols` is a constant or CM_M(size), another size of
 *                                   the model (CM_M expands to m->size: an `m` must be in scope)
 *   X(type, name, count, capacity)  a growing buffer `type* name` holding d->count elements in
 *                                   room for d->capacity
 * Descriptions, units and shapes of the fields are in model.h and data.h. */
#ifndef COMPLY_FIELDS_H
#define COMPLY_FIELDS_H

#include "comply/data.h"
#include "comply/model.h"

/* a size of the model, for the `cols` of a list row */
#define CM_M(size) (m->size)

/* ---- cmModel ----------------------------------------------------------------------------- */

/* the sizes: X(type, name) */
#define CM_MODEL_SIZES(X)                                                                          \
  X(int, nbody)                                                                                    \
  X(int, ngeom)                                                                                    \
  X(int, nvert)                                                                                    \
  X(int, nface)                                                                                    \
  X(int, nrule)                                                                                    \
  X(int, nalias)                                                                                   \
  X(int, nclass)                                                                                   \
  X(int, njoint)                                                                                   \
  X(int, nnode)                                                                                    \
  X(int, ntet)                                                                                     \
  X(int, ndvert)                                                                                   \
  X(int, ndface)                                                                                   \
  X(int, nridge)                                                                                   \
  X(int, nfacet)                                                                                   \
  X(int, nvgroup)                                                                                  \
  X(int, ncell)                                                                                    \
  X(int, ncellfacet)                                                                               \
  X(int, nnote)

/* the scene name (an owned string) and the options (held by value): X(type, name) */
#define CM_MODEL_SCALARS(X)                                                                        \
  X(char*, name)                                                                                   \
  X(cmOptions, opt)

/* plain arrays: numbers, and pointers the model does not own (user laws and their contexts);
 * allocated zeroed by the compiler as soon as their rows are known, freed by cm_model_free:
 * X(type, name, rows, cols) */
#define CM_MODEL_ARRAYS(X)                                                                         \
  X(int, body_alias, nbody, 1)                                                                     \
  X(int, body_motion, nbody, 1)                                                                    \
  X(int, body_geom, nbody, 1)                                                                      \
  X(double, body_mass, nbody, 1)                                                                   \
  X(double, body_invmass, nbody, 1)                                                                \
  X(double, body_inertia, nbody, 9)                                                                \
  X(double, body_invinertia, nbody, 9)                                                             \
  X(double, body_com, nbody, 3)                                                                    \
  X(double, body_force, nbody, 3)                                                                  \
  X(double, body_moment, nbody, 3)                                                                 \
  X(double, body_pos0, nbody, 3)                                                                   \
  X(double, body_quat0, nbody, 4)                                                                  \
  X(double, body_vel0, nbody, 3)                                                                   \
  X(double, body_angvel0, nbody, 3)                                                                \
  X(int, geom_type, ngeom, 1)                                                                      \
  X(int, geom_vertadr, ngeom, 1)                                                                   \
  X(int, geom_nvert, ngeom, 1)                                                                     \
  X(int, geom_faceadr, ngeom, 1)                                                                   \
  X(int, geom_nface, ngeom, 1)                                                                     \
  X(double, geom_plane, ngeom, 4)                                                                  \
  X(double, geom_aabb, ngeom, 6)                                                                   \
  X(double, geom_ball, ngeom, 4)                                                                   \
  X(double, geom_volume, ngeom, 1)                                                                 \
  X(double, geom_area, ngeom, 1)                                                                   \
  X(int, geom_nridge, ngeom, 1)                                                                    \
  X(int, geom_ridgeadr, ngeom, 1)                                                                  \
  X(int, geom_open_dir, ngeom, 1)                                                                  \
  X(int, geom_nconcave, ngeom, 1)                                                                  \
  X(int, geom_nfacet, ngeom, 1)                                                                    \
  X(int, geom_facetadr, ngeom, 1)                                                                  \
  X(int, geom_vgroupadr, ngeom, 1)                                                                 \
  X(int, geom_celladr, ngeom, 1)                                                                   \
  X(double, geom_grid, ngeom, 3)                                                                   \
  X(double, mesh_vert, nvert, 3)                                                                   \
  X(int, mesh_vert_source, nvert, 1)                                                               \
  X(int, mesh_face, nface, 3)                                                                      \
  X(double, mesh_face_normal, nface, 3)                                                            \
  X(double, mesh_face_area, nface, 1)                                                              \
  X(double, mesh_vert_areavec, nvert, 3)                                                           \
  X(double, mesh_vert_pn, nvert, 3)                                                                \
  X(double, mesh_edge_pn, nface, 9)                                                                \
  X(int, mesh_face_adj, nface, 3)                                                                  \
  X(int, mesh_face_ridge, nface, 1)                                                                \
  X(int, mesh_ridge, nridge, 4)                                                                    \
  X(double, facet_plane, nfacet, 4)                                                                \
  X(int, facet_faceadr, nfacet, 1)                                                                 \
  X(int, facet_nface, nfacet, 1)                                                                   \
  X(int, mesh_facet_face, nface, 1)                                                                \
  X(double, mesh_facet_box, nface, 6)                                                              \
  X(int, mesh_face_facet, nface, 1)                                                                \
  X(double, mesh_vgroup_box, nvgroup, 6)                                                           \
  X(int, cell_facetadr, ncell, 1)                                                                  \
  X(int, cell_nfacet, ncell, 1)                                                                    \
  X(double, cell_bound, ncell, 4)                                                                  \
  X(int, cell_facet, ncellfacet, 1)                                                                \
  X(void*, rule_law_fn, nrule, 1)                                                                  \
  X(void*, rule_law_ctx, nrule, 1)                                                                 \
  X(int, alias_class, nalias, 1)                                                                   \
  X(int, class_rule, nclass, CM_M(nclass))                                                         \
  X(int, class_first, nclass, CM_M(nclass))                                                        \
  X(int, joint_body, njoint, 2)                                                                    \
  X(double, joint_anchor, njoint, 6)                                                               \
  X(int, joint_rule, njoint, 1)                                                                    \
  X(int, body_nodeadr, nbody, 1)                                                                   \
  X(int, body_nnode, nbody, 1)                                                                     \
  X(int, body_tetadr, nbody, 1)                                                                    \
  X(int, body_ntet, nbody, 1)                                                                      \
  X(int, body_material, nbody, 1)                                                                  \
  X(int, body_fem_scheme, nbody, 1)                                                                \
  X(double, body_lame, nbody, 2)                                                                   \
  X(double, body_rayleigh, nbody, 2)                                                               \
  X(int, mesh_vert_node, nvert, 1)                                                                 \
  X(int, node_body, nnode, 1)                                                                      \
  X(int, node_fixed, nnode, 1)                                                                     \
  X(int, node_attach, nnode, 1)                                                                    \
  X(double, node_anchor, nnode, 3)                                                                 \
  X(double, node_pos0, nnode, 3)                                                                   \
  X(double, node_vel0, nnode, 3)                                                                   \
  X(double, node_mass, nnode, 1)                                                                   \
  X(int, tet_node, ntet, 4)                                                                        \
  X(double, tet_dminv, ntet, 9)                                                                    \
  X(double, tet_vol, ntet, 1)

/* arrays of owned strings: allocated like the plain arrays (the notes grow one at a time as the
 * compiler writes them), every string freed, then the array: X(type, name, rows, cols) */
#define CM_MODEL_STRINGS(X)                                                                        \
  X(char*, body_name, nbody, 1)                                                                    \
  X(char*, alias_name, nalias, 1)                                                                  \
  X(char*, note, nnote, 1)

/* arrays of structs that own memory, built and freed by hand in the compiler: the rules (their
 * pair strings) and one face tree per geometry (an internal type, `void` here):
 * X(type, name, rows, cols) */
#define CM_MODEL_OWNING(X)                                                                         \
  X(cmRuleDef, rule, nrule, 1)                                                                     \
  X(void, geom_bvh, ngeom, 1)

/* ---- cmData ------------------------------------------------------------------------------ */

/* scalars; copied, and saved in a checkpoint in this order (8 bytes each): X(type, name) */
#define CM_DATA_SCALARS(X)                                                                         \
  X(long, step)                                                                                    \
  X(double, time)                                                                                  \
  X(int, solver_iter)                                                                              \
  X(double, solver_residual)                                                                       \
  X(int, solver_max_iter)                                                                          \
  X(double, solver_max_residual)                                                                   \
  X(long, solver_solves)                                                                           \
  X(long, solver_total_iter)                                                                       \
  X(long, solver_failed_solves)                                                                    \
  X(double, energy)                                                                                \
  X(double, energy_low)                                                                            \
  X(double, energy_scale)                                                                          \
  X(double, energy_growth)                                                                         \
  X(long, energy_first_step)                                                                       \
  X(int, energy_body)                                                                              \
  X(int, energy_monitor)                                                                           \
  X(double, depth_ratio)                                                                           \
  X(long, depth_first_step)                                                                        \
  X(int, depth_body_a)                                                                             \
  X(int, depth_body_b)                                                                             \
  X(long, tunnel_first_step)                                                                       \
  X(int, tunnel_body_a)                                                                            \
  X(int, tunnel_body_b)                                                                            \
  X(double, tunnel_speed)                                                                          \
  X(double, tunnel_thickness)                                                                      \
  X(long, solver_retries)                                                                          \
  X(long, soft_rows)                                                                               \
  X(double, soft_factor)

/* run totals (warning counts, cumulative stage timers); copied and saved after the scalars:
 * X(type, name, count) */
#define CM_DATA_TOTALS(X)                                                                          \
  X(int, warning, CM_WARN_COUNT)                                                                   \
  X(double, timer, CM_TIMER_COUNT)

/* text about the last step; copied, not saved: X(type, name, count) */
#define CM_DATA_TEXT(X) X(char, message, 512)

/* the dynamic state of a body: everything the next step depends on (with d->step). Hashed by
 * cm_data_hash, saved in a checkpoint and restored by a failed step, as the 19 numbers of a body
 * one after the other in this order: X(type, name, rows, cols). body_dv (the velocity change
 * the contact solve gave the body in the last step) is where the next solve starts from: it
 * changes a result only within the solver's tolerance, but bit for bit, so it is state. */
#define CM_DATA_STATE(X)                                                                           \
  X(double, body_cpos, nbody, 3)                                                                   \
  X(double, body_xquat, nbody, 4)                                                                  \
  X(double, body_cvel, nbody, 3)                                                                   \
  X(double, body_angvel, nbody, 3)                                                                 \
  X(double, body_dv, nbody, 6)

/* per-body values derived from the state and the model (model/state.c); copied, recomputed
 * after a checkpoint is read: X(type, name, rows, cols) */
#define CM_DATA_DERIVED(X)                                                                         \
  X(double, body_xpos, nbody, 3)                                                                   \
  X(double, body_xvel, nbody, 3)                                                                   \
  X(double, body_aabb, nbody, 6)

/* inputs the caller sets between steps: body_xfrc, a force (N, world, at the com) and a moment
 * (N m, world) per body, added to the body's forces in every step until changed (prescribed and
 * fixed bodies ignore it). Copied by cm_data_copy, zeroed by cm_data_reset, neither hashed nor
 * saved in a checkpoint: the same state and the same inputs continue identically.
 * X(type, name, rows, cols) */
#define CM_DATA_INPUT(X) X(double, body_xfrc, nbody, 6)

/* the dynamic state of the finite-element nodes of deformable bodies (docs/deformable.md):
 * hashed after the bodies, saved in a checkpoint after the bodies' states and restored by a
 * failed step, as the 6 numbers of a node one after the other: X(type, name, rows, cols) */
#define CM_DATA_NODES(X)                                                                           \
  X(double, node_pos, nnode, 3)                                                                    \
  X(double, node_vel, nnode, 3)

/* every per-body and per-node array, allocated with the data: X(type, name, rows, cols) */
#define CM_DATA_BODY(X) CM_DATA_STATE(X) CM_DATA_DERIVED(X) CM_DATA_INPUT(X) CM_DATA_NODES(X)

/* the contacts of the current step, grown by the narrowphase; copied, not saved (the next step
 * finds them again): X(type, name, count, capacity) */
#define CM_DATA_BUFFERS(X)                                                                         \
  X(cmContact, contact, ncontact, maxcontact)                                                      \
  X(cmContactPair, pair, npair, maxpair)

/* the private part (scratch arena and per-step work, never copied or saved): X(type, name) */
#define CM_DATA_PRIVATE(X) X(void*, internal)

#endif
