/* The island of the implicit solve (solve_implicit.c): its variables, rows and work arrays,
 * shared with the finite-element terms of deformable bodies (solve_fem.c). Internal to solve/. */
#ifndef CM_SOLVE_ISLAND_H
#define CM_SOLVE_ISLAND_H

#include "comply/model.h"
#include "core/arena.h"
#include "model/rows.h"
#include "solve/block_cholesky.h"

typedef struct Island {
  int nb;          /* variable blocks of 6: the rigid bodies, then the free nodes of the
                      deformable bodies (v, then 3 unused numbers that stay 0) */
  const int* body; /* global body index of each block (nb) */
  const int* node; /* global node index of each block, -1 for a rigid body (nb) */
  int nr;          /* rows */
  cmRow** row;     /* (nr) */
  double h;
  int* lb;       /* per row: local index of body A and B, -1 if not a variable (nr x 2) */
  double* R;     /* per row: R of the normal law (nr) */
  double* b;     /* per row: b of the normal law (nr) */
  double* limit; /* per row: Coulomb limit impulse (nr) */
  double* vs;    /* per row: stick velocity of this step (nr) */
  /* the anchored friction springs (docs/contact-laws.md, "Friction"), per row: kt2 = k_t h^2 +
   * D_t h (0: no spring, the rule's stick velocity vs instead), the stretch at the start of the
   * step s0 (2, along t1, t2) and the slip it offsets, cw = -k_t h s0 / kt2 (2) */
  double* kt2;
  double* s0;
  double* cw;
  unsigned char* flag; /* per row: secant friction Hessian this iteration (nr) */
  double* aa;          /* Anderson history of the outer loop: G, f and AA_DEPTH differences of
                          each ((2 + 2 AA_DEPTH) x nr) */
  int aa_n;            /* differences held (<= AA_DEPTH); -1: no pass yet */
  int aa_next;         /* the slot the next difference goes to */
  double aa_fn;        /* |G(L) - L| of the last pass */
  /* the coupled Newton step (solve_implicit.c, coupled_step): the sliding rows S it couples
   * and the Krylov basis of its GMRES; cs_max = 0 where it does not run (no friction, deformable
   * bodies) */
  int cs_max;            /* rows in S at most */
  int* cS;               /* S (cs_max) */
  double* cxh;           /* per row of S: its unit slip direction xh and mu / R, fixed while one
                            coupled direction is formed (3 cs_max) */
  double* kv;            /* the basis ((KRYLOV_MAX + 1) x 6 nb; on the conjugate-gradient path
                            direct_step's, (DIRECT_MAX + 1) x 6 nb) */
  double* kz;            /* on the conjugate-gradient path, the preconditioned basis vectors of
                            direct_step's GMRES (DIRECT_MAX x 6 nb); NULL on the factorised path */
  double *ub, *ds;       /* u before a coupled step, the plain Newton direction (6 nb each) */
  double *yb, *lb_limit; /* the rates (3 nr) and limits (nr) before a coupled step */
  unsigned char* flag_b; /* the secant flags before a coupled step (nr) */
  double* gb;            /* the gradient before a direct step (6 nb; conjugate-gradient path) */
  int direct_off;        /* 1: a direct step's GMRES did not converge in this solve: plain steps */
  int g_fresh;           /* 1: g, rh and rany are those of u already (an accepted coupled step's
                            merit computed them); imp2 their impulses' squared norm */
  double imp2;
  double* y;             /* per row: rates along n, t1, t2 at u (nr x 3) */
  double* dy;            /* per row: the same along the direction (nr x 3) */
  double* yo;            /* per row: the rates of its sides that are not variables of the island (a
                            prescribed body, a fixed or carried node), which move on their own: added to
                            every y (nr x 3); NULL where no row has one */
  double* Mb;            /* per body 6x6 mass blocks: m I3 and the world inertia (nb x 36) */
  double *u, *us, *u0, *g, *du, *Mdu; /* (6 nb): u0 is the warm start */
  double* H;           /* the dense Hessian (6 nb x 6 nb), NULL on the block-sparse path */
  cmBlockChol* bc;     /* the block-sparse Hessian and factor, NULL on the dense path */
  double* hrow;        /* the delta assembly (block-sparse rigid islands; else NULL): each row's
                          Hessian in its frame as last added to the store (9 per row); the store
                          then holds the mass blocks too */
  int assembled;       /* 1: the store holds the last iteration's Hessian (the delta assembly) */
  unsigned char* bset; /* the delta assembly's first one: per off-diagonal block of the store, 1
                          once a row has written it (bwork; NULL outside that assembly) */
  unsigned char* bwork; /* ap[nb] bytes for bset */
  double* rh;          /* per row: its 3x3 Hessian in its frame at the last gradient (9 per row) */
  unsigned char* rany; /* per row: 1 it had an impulse there, 2 its Hessian changed, 4 it may
                        * slide (sliding_rows tests it) (nr) */
  int pending;         /* 1: rh is not in the store yet (assemble_hessian, before a direction) */
  int reuse;           /* 1: the factor is reused across Newton iterations (as a preconditioner) */
  int factored;        /* 1: bc holds a factor from an earlier iteration of this solve */
  int fresh;           /* 1: the factor is that of the current Hessian */
  int last_cg;         /* conjugate-gradient iterations of the last reuse */
  double* rwork;       /* conjugate gradients with the factor (4 x 6 nb) */
  int pcg;             /* 1: the Newton systems are solved by conjugate gradients on bc (an island
                          with deformable bodies' nodes, block_pcg.c), not factorised */
  double* pcg_work;
  int* slot;       /* per row: its off-diagonal block in bc (-1: none) */
  /* rows whose side B is a point of a deformable body's face (cmRow.fnode): four terms, A
   * then the face's three nodes, each a block (-1: not a variable) with a signed weight (A's
   * +1, node i's -w_i); their levers are rA and 0 */
  int* fterm;  /* per row: -1 for a row of two sides, else its index f into tb4, tw4, fslot */
  int* tb4;    /* (4 per such row) */
  double* tw4; /* (4 per such row) */
  int* fslot;  /* block-sparse: the slot of each pair of its terms (01 02 03 12 13 23; 6 per row) */
  int nface_rows;
  /* results */
  int iter;                      /* Newton iterations */
  double tol;                    /* the convergence test's relative residual */
  double res;                    /* final relative residual */
  double res0;                   /* the relative residual at the Newton start */
  int failed;                    /* 1 if not converged (or not positive definite) */
  int nfactor, nreuse, ncoupled; /* factorisations, reused-factor directions, coupled steps */
  /* deformable bodies (solve_fem.c): their elements in the island */
  const cmModel* m;
  const cmData* d;
  int ntet;      /* tetrahedra with a free node */
  int* tet;      /* their global indices (ntet) */
  int* tblk;     /* the block that moves each of their nodes: its own (a free node), its rigid
                    body's (a node attached to a dynamic body), -1 (fixed, or moved by a fixed
                    or prescribed body)                                          (ntet x 4) */
  double* tr;    /* per tet node: its lever arm from its rigid body's com (0 for a free node):
                    the node moves at v + w x r of its block                    (ntet x 12) */
  double* txc;   /* per tet node: its position at u = 0, x = txc + a (v + w x r) (ntet x 12) */
  int* tslot;    /* block-sparse path: the slot of each node pair (0,1) (0,2) (0,3) (1,2)
                    (1,3) (2,3), -1 if a node is fixed (ntet x 6) */
  double* xc;    /* per block: the node's position at u = 0, x = xc + a u (3 nb) */
  double* fa;    /* per block: a, h for backward Euler, h/4 for the midpoint rule (nb) */
  int fem_exact; /* 1: the elements' exact stiffness (quadratic convergence); 0: projected onto
                    positive semi-definite, after an exact one made a Newton system indefinite */
  double fscale; /* the size of the elements' terms of the gradient at the last iterate: the
                    root sum of squares of each element's (N s); the scale of the convergence
                    test with the momentum and the contact impulses (a body at rest has no
                    momentum, its elements' forces balance its weight) */
} Island;

/* The elastic energy of the island's deformable bodies, W(u) = sum over tets of w Psi(x(u)),
 * x = xc + a u (backward Euler: a = h, w = 1, xc = x_n; midpoint: a = h/4, w = 4, xc = x_n +
 * a v_n, so that the gradient is h times the elastic force at the end or middle of the step).
 * Setup: the island's tets, node blocks, positions at u = 0 and (block-sparse path) slots;
 * loc[b] is the local block of rigid body b or -1, nloc[n] that of node n or -1; nonzero when
 * out of memory. */
int cm_island_fem_setup(Island* is, const int* loc, const int* nloc, double h, cmArena* arena);
/* the pairs of blocks the elements couple, appended to edge (returns the count; at most 6
 * ntet pairs) */
int cm_island_fem_edges(const Island* is, int* edge);
/* the slots of the element pairs in the block-sparse store (after its analysis) */
void cm_island_fem_slots(Island* is);
/* add the gradient of W at is->u into is->g and its Hessian (positive semi-definite per
 * element) into the Hessian store, set is->fscale; 0 if some element is inverted (Neo-Hookean:
 * W infinite) */
int cm_island_fem_grad_hess(Island* is);
/* the slope of W along du at u + t du; +INFINITY where an element is inverted */
double cm_island_fem_slope(const Island* is, double t);
/* Rayleigh's stiffness-proportional damping along the direction: with each element's stiffness
 * K at is->u frozen, the damping force h beta K v adds a_d + t c_d to the slope of E along du
 * (a_d = h beta u^T K du, c_d = h beta du^T K du, over the elements of bodies with beta > 0),
 * added into *a and *c */
void cm_island_fem_damping_line(const Island* is, double* a, double* c);
/* the node blocks of is->u at the velocities that leave the nodes where they are (x = x_n):
 * a start where no element is inverted */
void cm_island_fem_start_at_rest(Island* is);

#endif
