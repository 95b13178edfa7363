/* comply: scene description, built from a YAML file (cm_scene_load) or by the builder API.
 *
 * A cmScene is the mutable, user-facing description; cm_model_compile (model.h) turns it into
 * the read-only cmModel. Definition structs come from defaults functions
 * (`cmBodyDef b = cm_body_def_default();`), are filled by the caller and copied into the scene
 * by the cm_scene_add_* functions (strings are copied too). The scene file format is
 * documented in docs/scene-format.md. */
#ifndef COMPLY_SCENE_H
#define COMPLY_SCENE_H

#include "comply/core.h"
#include "comply/mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

/* where a definition came from in its scene file (0 when built by the API) */
typedef struct cmSourceLoc {
  int line; /* 1-based line, 0 unknown */
  int col;  /* 1-based column, 0 unknown */
} cmSourceLoc;

typedef enum cmIntegrator {
  CM_INTEGRATOR_IMPLICIT = 0, /* mid-step implicit compliant contact solve (default) */
  CM_INTEGRATOR_EXPLICIT      /* forces at the start of the step, symplectic Euler */
} cmIntegrator;

/* scene-wide options (`scene:` and `output:` sections) */
typedef struct cmOptions {
  double timestep;   /* s, > 0 (default 1e-3) */
  double duration;   /* s, >= 0 (default 1); used when steps == 0: round(duration / timestep)
                        steps, at most CM_STEPS_MAX; a duration > 0 must give at least one */
  long steps;        /* number of steps; 0 = round(duration / timestep) */
  double gravity[3]; /* m/s^2 (default 0, 0, -9.81) */
  cmIntegrator integrator;
  int substeps;      /* sub-steps per step: 1..CM_SUBSTEPS_MAX, or CM_SUBSTEPS_AUTO (0, the
                        default): per step the fewest that keep every explicit row resolved, at
                        most CM_SUBSTEPS_AUTO_MAX (docs/contact-laws.md, "Explicit stability") */
  int output_every;  /* write outputs every N steps, >= 1 (default 1) */
  double max_speed;  /* numerical guard: a body faster than this (com speed, or angular speed
                        times the body's radius) stops the run, m/s, > 0 (default 1e4) */
  long max_contacts; /* resource limit: more contact points in one step stop the run, >= 1
                        (default 10,000,000) */
  int vtk;           /* 1: write the VTK series (default 0) */
  int allow_initial_overlap; /* 1: `comply run` accepts initial overlaps whose elastic energy
                                would set a pair apart faster than 1 m/s (default 0) */
  double solver_tolerance;   /* the relative momentum residual at which an implicit solve has
                                converged: CM_SOLVER_TOLERANCE_AUTO (0, the default: 1e-8 for
                                rigid bodies, 1e-10 where a deformable body's elements take part),
                                or a value in [CM_SOLVER_TOLERANCE_MIN, CM_SOLVER_TOLERANCE_MAX]
                                for every solve (with elements, not below 1e-10;
                                docs/contact-laws.md, "The Newton tolerance") */
} cmOptions;
CM_API cmOptions cm_options_default(void);
/* cmOptions.substeps: chosen per step from the explicit rows (`substeps: auto`), and the most
 * sub-steps that choice may take in one step */
#define CM_SUBSTEPS_AUTO 0
#define CM_SUBSTEPS_AUTO_MAX 100
/* the most sub-steps a step may be given (cmOptions.substeps), and the most steps a run may
 * have (cmOptions.steps, or round(duration / timestep)) */
#define CM_SUBSTEPS_MAX 10000
#define CM_STEPS_MAX 1e15
/* cmOptions.solver_tolerance: chosen per solve (`solver_tolerance: auto`), and the range of a
 * value given: below 1e-12 rounding, not the residual, decides when a rigid solve ends (at
 * 1e-14 examples/falling_boxes.yaml took 11 Newton iterations per solve instead of 1.1, its
 * steps retried from rounding alone; 1e-12 and 1e-13 ran as auto does), and beyond 1e-4 a step's
 * impulses are off by a part in ten thousand of its momentum. A deformable body's elements
 * stop near 1e-10 (examples/cartilage_pad.yaml at 1e-12: residuals of 9e-11 and a
 * solver_not_converged warning per step), so their solves use at least 1e-10 */
#define CM_SOLVER_TOLERANCE_AUTO 0.0
#define CM_SOLVER_TOLERANCE_MIN 1e-12
#define CM_SOLVER_TOLERANCE_MAX 1e-4
/* a step in which an implicit solve does not converge is taken again in twice the sub-steps, up
 * to this many times the scene's (docs/contact-laws.md, "Retried steps") */
#define CM_RETRY_SPLIT_MAX 8

typedef enum cmGeomType {
  CM_GEOM_NONE = 0,
  CM_GEOM_SPHERE, /* icosphere mesh */
  CM_GEOM_BOX,    /* subdivided box mesh */
  CM_GEOM_MESH,   /* mesh file, or a cmMesh given through the API */
  CM_GEOM_PLANE   /* analytic half-space {x : normal . x <= offset} in the body frame */
} cmGeomType;

typedef struct cmGeomDef {
  cmGeomType type;
  double radius;      /* sphere radius, m, > 0 */
  int refine;         /* sphere subdivision level 0..8 (default 3) */
  double size[3];     /* box edge lengths, m, > 0 */
  int divisions;      /* box divisions per face edge 1..CM_BOX_MAX_DIVISIONS = 330 (default 1) */
  const char* file;   /* mesh file; relative paths are relative to the scene file's folder */
  double scale;       /* mesh scale factor, > 0 (default 1) */
  int repair;         /* 1: cm_mesh_repair the mesh before checking it, a compile note says
                         what changed (default 0) */
  const cmMesh* mesh; /* mesh given by the API instead of a file (copied by cm_scene_add_body) */
  double normal[3];   /* plane outward normal (normalised at compile; default 0, 0, 1) */
  double offset;      /* plane offset, m (default 0) */
  cmSourceLoc loc;
} cmGeomDef;

typedef enum cmMotion {
  CM_MOTION_DYNAMIC = 0, /* moves under forces and contacts */
  CM_MOTION_FIXED,       /* never moves, infinite mass */
  CM_MOTION_PRESCRIBED,  /* moves with its given velocity and angular velocity, infinite mass */
  CM_MOTION_IGNORED,     /* MOVE-1: never collides (not even through wildcards); moves freely */
  CM_MOTION_DEFORMABLE   /* a tetrahedral finite-element body (cmBodyDef.deformable,
                            docs/deformable.md) */
} cmMotion;

/* the elastic material of a deformable body (docs/deformable.md, "Materials") */
typedef enum cmMaterial {
  CM_MATERIAL_NEO_HOOKEAN = 0, /* compressible Neo-Hookean (default): large strains */
  CM_MATERIAL_COROTATED,       /* corotated linear: large rotations, small strains */
  CM_MATERIAL_LINEAR           /* linear (small strain): not invariant under rotation */
} cmMaterial;

/* the time integration of a deformable body's nodes, inside the implicit solve */
typedef enum cmFemScheme {
  CM_FEM_BACKWARD_EULER = 0, /* elastic forces at the end of the step (default): damps the
                                fastest modes, never grows */
  CM_FEM_MIDPOINT            /* elastic forces at the middle of the step: conserves the energy
                                of a free elastic body */
} cmFemScheme;

/* a deformable body's finite elements (motion deformable): linear tetrahedra from the
 * geometry: a box cut into cells[0] x cells[1] x cells[2] cubes of 6 tets, a sphere of about
 * cells[0] cells across its diameter, or a tet mesh file (.msh, .vtu, .vtk); the body's density
 * gives the lumped node masses */
typedef struct cmDeformableDef {
  cmMaterial material;
  double young;        /* Young's modulus E, Pa, > 0 (default 1e6) */
  double poisson;      /* Poisson's ratio nu, in [0, 0.49] (default 0.3) */
  int cells[3];        /* box: cells along x, y, z, 1..CM_FEM_MAX_CELLS; sphere: cells[0]
                          across the diameter, 2..CM_FEM_MAX_CELLS; 0, 0, 0 (the default): the
                          geometry's default, 4, 4, 4 for a box and 8 for a sphere */
  int has_fixed;       /* 1: nodes in the box fixed_min..fixed_max are held */
  double fixed_min[3]; /* world box at t = 0 (after position and orientation), m */
  double fixed_max[3];
  const char* attach; /* a rigid body's name: the nodes in the box attach_min..attach_max (world,
                         t = 0, m) move with it (NULL: none; a fixed node stays fixed) */
  double attach_min[3];
  double attach_max[3];
  cmFemScheme scheme;
  double rayleigh_mass;      /* Rayleigh damping alpha: force -alpha m v on every node, 1/s, >= 0
                                (default 0) */
  double rayleigh_stiffness; /* Rayleigh damping beta: force -beta K v (K the elements' stiffness
                                at the current shape), s, >= 0 (default 0) */
  cmSourceLoc loc;
} cmDeformableDef;
#define CM_FEM_MAX_CELLS 200

typedef struct cmBodyDef {
  const char* name;  /* unique, required; "world" is reserved */
  const char* alias; /* rule name (NULL = name); several bodies may share one */
  cmGeomDef geom;
  double density;             /* kg/m^3, CM_MASS_MIN..CM_MASS_MAX (default 1000); used when
                                 mass == 0 */
  double mass;                /* kg; CM_MASS_MIN..CM_MASS_MAX overrides density, 0 = from density
                                 and volume (which must give a mass in that range) */
  int has_com;                /* 1: com given (else from geometry) */
  double com[3];              /* centre of mass in the body frame, m */
  int has_inertia;            /* 1: inertia given (else from geometry, scaled to the mass) */
  double inertia[9];          /* inertia about the com in body axes, kg m^2, symmetric positive */
  double position[3];         /* world position of the body frame origin, m */
  double orientation[4];      /* unit quaternion w x y z, body to world (default 1, 0, 0, 0) */
  double velocity[3];         /* velocity of the body frame origin, world, m/s */
  double angular_velocity[3]; /* world, rad/s */
  cmMotion motion;
  double force[3];            /* constant outer force at the com, world, N */
  double moment[3];           /* constant outer moment, world, N m */
  cmDeformableDef deformable; /* motion deformable only */
  cmSourceLoc loc;
} cmBodyDef;
CM_API cmBodyDef cm_body_def_default(void);
/* the range of a body's mass (kg) and of its density (kg/m^3): beyond it the inertia tensor
 * (some m L^2) and its determinant leave the range of doubles */
#define CM_MASS_MIN 1e-30
#define CM_MASS_MAX 1e30

typedef enum cmLawType {
  CM_LAW_CONTACT_TIME = 0, /* rigidbody-interaction.txt spring-dashpot scaled by m_rep */
  CM_LAW_AREA_COMPLIANT,   /* area-compliant-contact.txt: K = ka A */
  CM_LAW_LINEAR,           /* K = stiffness per point (for comparison) */
  CM_LAW_NONE              /* the pair does not collide */
} cmLawType;

typedef enum cmMethod {
  CM_METHOD_VERTEX = 0,  /* vertices of one body inside the other */
  CM_METHOD_TWO_WAY,     /* vertices of both, half area each */
  CM_METHOD_VERTEX_EDGE, /* two_way plus edge-edge contacts */
  CM_METHOD_CONTOUR,     /* intersection-contour regions */
  CM_METHOD_AUTO         /* vertex plus the edge-edge contacts of vertex_edge (rigid pairs) */
} cmMethod;

typedef enum cmDirection {
  CM_DIRECTION_AUTO = 0, /* the finer-sampled mesh penetrates */
  CM_DIRECTION_FIRST     /* the body matching the rule's first alias penetrates */
} cmDirection;

/* the representative mass m_rep of the contact_time law (rule key `mass`) */
typedef enum cmRepMass {
  CM_REP_MASS_MIN = 0,  /* min(m_i, m_j), a wall infinite (rigidbody-interaction.txt; default):
                           T and e_r hold for a body against a wall, hit at its centre */
  CM_REP_MASS_EFFECTIVE /* the effective mass of the pair at the contact point along the normal,
                           1 / (J M^-1 J^T): T and e_r hold for any pair and lever arm */
} cmRepMass;

typedef enum cmIntegration {
  CM_INTEGRATION_DEFAULT = 0, /* contact_time: explicit; other laws: the scene's integrator */
  CM_INTEGRATION_IMPLICIT,
  CM_INTEGRATION_EXPLICIT
} cmIntegration;

/* an interaction rule; a body pair uses the LAST rule whose alias globs match it */
typedef struct cmRuleDef {
  const char* pair[2]; /* alias globs with * and ?, order does not matter */
  cmLawType law;
  /* area_compliant */
  double ka;                /* stiffness per unit area, N/m^3, > 0 (default 5e10) */
  double step_damping;      /* dimensionless, >= 0 (default 1) */
  double stiffness_damping; /* damping time constant, s, >= 0 (default 0) */
  /* contact_time */
  double elastic_repulsion; /* e_r in (0, 1] (default 0.5) */
  double play;              /* d_play, m, >= 0 (default 0) */
  double contact_time;      /* T, s, > 0; 0 = 100 * timestep (default) */
  cmRepMass mass;           /* m_rep (default CM_REP_MASS_MIN); also for joints */
  /* linear */
  double stiffness; /* N/m per contact point, > 0 (default 1e5) */
  double damping;   /* N s/m per contact point, >= 0 (default 0) */
  /* all laws */
  double friction;       /* Coulomb mu >= 0 (default 0) */
  double stick_velocity; /* for implicit contacts without an anchored friction spring
                            (contour regions): the slip speed below which friction is
                            proportional to the slip, so that such a sticking contact creeps
                            at most this fast, m/s, in [1e-9, 1] (default 1e-5;
                            docs/contact-laws.md, "Friction": vertex and edge contacts have a
                            spring and do not creep) */
  /* area_compliant and linear, implicit rows: the shortest period, in sub-steps, with which a
   * body may ring on its contacts, >= 0 (default 0: the law's stiffness everywhere). Where a
   * rigid body's rows give sum K w > (2 pi / (min_period h))^2 (w a row's inverse effective
   * mass along its normal), this rule's rows on it are softened by the factor that makes it
   * equal: K, damping and friction spring alike (docs/contact-laws.md, "Softened contacts:
   * min_period") */
  double min_period;
  cmMethod method;
  cmDirection direction;
  cmIntegration integration;
  cmSourceLoc loc;
} cmRuleDef;
CM_API cmRuleDef cm_rule_def_default(void);
/* the largest ka (N/m^3) and linear stiffness (N/m), and the shortest contact_time (s), a rule
 * accepts: beyond them the laws lose their force in double-precision rounding */
#define CM_KA_MAX 1e20
#define CM_STIFFNESS_MAX 1e20
#define CM_CONTACT_TIME_MIN 1e-9
/* the longest contact_time a rule accepts, s (K = m (pi/T)^2 holds nothing up beyond it) */
#define CM_CONTACT_TIME_MAX 1e6
/* the largest min_period a rule accepts, sub-steps */
#define CM_MIN_PERIOD_MAX 1e6
/* the largest step_damping (dimensionless: the restitution 0.5 / (0.5 + s) is 5e-7 there),
 * stiffness_damping (s) and friction coefficient a rule accepts; a linear rule's damping has
 * the bound of its stiffness (N s/m) */
#define CM_STEP_DAMPING_MAX 1e6
#define CM_STIFFNESS_DAMPING_MAX 1e6
#define CM_FRICTION_MAX 1e6
/* the largest magnitude of a coordinate a scene accepts (positions, centres of mass, joint
 * anchors, play, the boxes of a deformable body), m: the meshes' bound (beyond it areas and
 * volumes overflow); and of a component of gravity, m/s^2 (ultracentrifuges reach 1e7) */
#define CM_COORD_MAX 1e50
#define CM_GRAVITY_MAX 1e10
/* the largest magnitude of an entry of a given inertia tensor, kg m^2 */
#define CM_INERTIA_MAX 1e90

/* a soft point link between two bodies, or a body and the world */
typedef struct cmJointDef {
  const char* body[2]; /* body names; "world" (or NULL) for the world */
  double anchor[3];    /* world point at t = 0, fixed in both bodies, m */
  cmSourceLoc loc;
} cmJointDef;
CM_API cmJointDef cm_joint_def_default(void);

typedef struct cmScene {
  char* name; /* scene name (default: file name without extension, or "scene") */
  char* file; /* the scene file path, NULL if built by the API */
  char* dir;  /* folder for relative mesh paths ("." if built by the API) */
  cmOptions opt;
  int nbody;
  cmBodyDef* body; /* (nbody) strings owned by the scene */
  int nrule;
  cmRuleDef* rule; /* (nrule) user rules in file order */
  int njoint;
  cmJointDef* joint; /* (njoint) */
} cmScene;

/* empty scene with default options; NULL on no memory */
CM_API cmScene* cm_scene_new(const char* name);
CM_API void cm_scene_free(cmScene* scene);
/* copy a definition into the scene (strings and API meshes are copied). Returns the new
 * index, or -1 with a message in err (bad value, duplicate name, no memory). The values are
 * validated with cm_scene_validate's rules. */
CM_API int cm_scene_add_body(cmScene* scene, const cmBodyDef* def, char* err, size_t errsz);
CM_API int cm_scene_add_rule(cmScene* scene, const cmRuleDef* def, char* err, size_t errsz);
CM_API int cm_scene_add_joint(cmScene* scene, const cmJointDef* def, char* err, size_t errsz);

/* Check every value (ranges, finiteness, unique names, joint bodies exist, plane bodies are
 * fixed). Messages: "FILE:LINE:COL: bodies[1] 'ball': mass must be >= 0 kg (got -1)". */
CM_API cmStatus cm_scene_validate(const cmScene* scene, char* err, size_t errsz);

/* Parse a YAML scene file (docs/scene-format.md). Unknown keys, wrong types, YAML tags and bad
 * values are errors naming file, line, column, field and the expected value, with a "did you
 * mean" for unknown keys. The file must be a regular file (a FIFO or a device is refused before
 * reading) of at most 64 MiB. Returns CM_ERR_IO, CM_ERR_LIMIT (too large), CM_ERR_NOMEM or
 * CM_ERR_PARSE/CM_ERR_ARG on failure. */
CM_API cmStatus cm_scene_load(const char* path, cmScene** out, char* err, size_t errsz);
/* the same from a string; `name` is used as the file name in messages */
CM_API cmStatus cm_scene_parse(const char* text, size_t len, const char* name, cmScene** out,
                               char* err, size_t errsz);

#ifdef __cplusplus
}
#endif
#endif
