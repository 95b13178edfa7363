/* Small vector, quaternion and 3x3 matrix math on plain double arrays.
 *
 * Conventions: vectors double[3]; quaternions double[4] = (w, x, y, z), unit, rotating body
 * coordinates into world coordinates (x_world = R(q) x_body); matrices double[9] row-major.
 * Output arguments come first and may alias inputs unless noted. */
#ifndef CM_MATH_H
#define CM_MATH_H

#include <math.h>

#define CM_PI 3.14159265358979323846

static inline void cm_v3_set(double r[3], double x, double y, double z) {
  r[0] = x;
  r[1] = y;
  r[2] = z;
}
static inline void cm_v3_copy(double r[3], const double a[3]) {
  r[0] = a[0];
  r[1] = a[1];
  r[2] = a[2];
}
static inline void cm_v3_add(double r[3], const double a[3], const double b[3]) {
  r[0] = a[0] + b[0];
  r[1] = a[1] + b[1];
  r[2] = a[2] + b[2];
}
static inline void cm_v3_sub(double r[3], const double a[3], const double b[3]) {
  r[0] = a[0] - b[0];
  r[1] = a[1] - b[1];
  r[2] = a[2] - b[2];
}
static inline void cm_v3_scale(double r[3], const double a[3], double s) {
  r[0] = a[0] * s;
  r[1] = a[1] * s;
  r[2] = a[2] * s;
}
/* r = a + s b */
static inline void cm_v3_madd(double r[3], const double a[3], const double b[3], double s) {
  r[0] = a[0] + s * b[0];
  r[1] = a[1] + s * b[1];
  r[2] = a[2] + s * b[2];
}
static inline double cm_v3_dot(const double a[3], const double b[3]) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
/* r = a x b (r must not alias a or b) */
static inline void cm_v3_cross(double r[3], const double a[3], const double b[3]) {
  r[0] = a[1] * b[2] - a[2] * b[1];
  r[1] = a[2] * b[0] - a[0] * b[2];
  r[2] = a[0] * b[1] - a[1] * b[0];
}
static inline double cm_v3_norm(const double a[3]) { return sqrt(cm_v3_dot(a, a)); }
/* normalise in place; returns the former length (a left unchanged if 0) */
static inline double cm_v3_normalize(double a[3]) {
  double n = cm_v3_norm(a);
  if (n > 0) cm_v3_scale(a, a, 1.0 / n);
  return n;
}
/* the unit vector of a finite a, into u; returns nonzero when a is zero. Without overflow or
 * underflow of the squares: where |a|^2 leaves the normal range (components beyond about 1e154
 * or below 1e-154) a is first divided by its largest component, else it is normalised as
 * cm_v3_normalize does, so that ordinary vectors give the same bits. */
static inline int cm_v3_unit(const double a[3], double u[3]) {
  double n2 = a[0] * a[0] + a[1] * a[1] + a[2] * a[2];
  u[0] = a[0];
  u[1] = a[1];
  u[2] = a[2];
  if (!(n2 >= 1e-300 && n2 <= 1e300)) {
    double mx = fmax(fabs(a[0]), fmax(fabs(a[1]), fabs(a[2])));
    if (!(mx > 0)) return 1;
    u[0] = a[0] / mx;
    u[1] = a[1] / mx;
    u[2] = a[2] / mx;
  }
  cm_v3_normalize(u);
  return 0;
}
static inline int cm_v3_isfinite(const double a[3]) {
  return isfinite(a[0]) && isfinite(a[1]) && isfinite(a[2]);
}

/* r = M a (r must not alias a) */
static inline void cm_m3_mulv(double r[3], const double M[9], const double a[3]) {
  r[0] = M[0] * a[0] + M[1] * a[1] + M[2] * a[2];
  r[1] = M[3] * a[0] + M[4] * a[1] + M[5] * a[2];
  r[2] = M[6] * a[0] + M[7] * a[1] + M[8] * a[2];
}
/* r = M^T a (r must not alias a) */
static inline void cm_m3_mulvt(double r[3], const double M[9], const double a[3]) {
  r[0] = M[0] * a[0] + M[3] * a[1] + M[6] * a[2];
  r[1] = M[1] * a[0] + M[4] * a[1] + M[7] * a[2];
  r[2] = M[2] * a[0] + M[5] * a[1] + M[8] * a[2];
}
/* R = A B (R must not alias A or B) */
static inline void cm_m3_mul(double R[9], const double A[9], const double B[9]) {
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      R[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
}
static inline void cm_m3_transpose(double R[9], const double A[9]) {
  double t[9] = {A[0], A[3], A[6], A[1], A[4], A[7], A[2], A[5], A[8]};
  for (int i = 0; i < 9; i++)
    R[i] = t[i];
}
static inline double cm_m3_det(const double A[9]) {
  return A[0] * (A[4] * A[8] - A[5] * A[7]) - A[1] * (A[3] * A[8] - A[5] * A[6]) +
         A[2] * (A[3] * A[7] - A[4] * A[6]);
}
/* inverse; returns 0 (R untouched) if singular */
static inline int cm_m3_inverse(double R[9], const double A[9]) {
  double det = cm_m3_det(A);
  if (det == 0 || !isfinite(det)) return 0;
  double id = 1.0 / det;
  double t[9] = {(A[4] * A[8] - A[5] * A[7]) * id, (A[2] * A[7] - A[1] * A[8]) * id,
                 (A[1] * A[5] - A[2] * A[4]) * id, (A[5] * A[6] - A[3] * A[8]) * id,
                 (A[0] * A[8] - A[2] * A[6]) * id, (A[2] * A[3] - A[0] * A[5]) * id,
                 (A[3] * A[7] - A[4] * A[6]) * id, (A[1] * A[6] - A[0] * A[7]) * id,
                 (A[0] * A[4] - A[1] * A[3]) * id};
  for (int i = 0; i < 9; i++)
    R[i] = t[i];
  return 1;
}
/* S = R A R^T (rotate a tensor from body to world axes) */
static inline void cm_m3_rotate(double S[9], const double R[9], const double A[9]) {
  double T[9], Rt[9];
  cm_m3_mul(T, R, A);
  cm_m3_transpose(Rt, R);
  cm_m3_mul(S, T, Rt);
}

static inline void cm_quat_identity(double q[4]) {
  q[0] = 1;
  q[1] = q[2] = q[3] = 0;
}
/* r = a * b (Hamilton product; r must not alias a or b) */
static inline void cm_quat_mul(double r[4], const double a[4], const double b[4]) {
  r[0] = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
  r[1] = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
  r[2] = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
  r[3] = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
}
/* normalise in place; returns the former norm (identity if 0) */
static inline double cm_quat_normalize(double q[4]) {
  double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (n > 0) {
    for (int i = 0; i < 4; i++)
      q[i] /= n;
  } else {
    cm_quat_identity(q);
  }
  return n;
}
/* rotation matrix of a unit quaternion */
static inline void cm_quat_to_mat(double R[9], const double q[4]) {
  double w = q[0], x = q[1], y = q[2], z = q[3];
  R[0] = 1 - 2 * (y * y + z * z);
  R[1] = 2 * (x * y - w * z);
  R[2] = 2 * (x * z + w * y);
  R[3] = 2 * (x * y + w * z);
  R[4] = 1 - 2 * (x * x + z * z);
  R[5] = 2 * (y * z - w * x);
  R[6] = 2 * (x * z - w * y);
  R[7] = 2 * (y * z + w * x);
  R[8] = 1 - 2 * (x * x + y * y);
}
/* r = R(q) v (r must not alias v) */
static inline void cm_quat_rotate(double r[3], const double q[4], const double v[3]) {
  double R[9];
  cm_quat_to_mat(R, q);
  cm_m3_mulv(r, R, v);
}
/* r = R(q)^T v (r must not alias v) */
static inline void cm_quat_rotate_inv(double r[3], const double q[4], const double v[3]) {
  double R[9];
  cm_quat_to_mat(R, q);
  cm_m3_mulvt(r, R, v);
}
/* unit quaternion of a rotation by `angle` (rad) about the unit `axis` */
static inline void cm_quat_from_axis_angle(double q[4], const double axis[3], double angle) {
  double s = sin(0.5 * angle);
  q[0] = cos(0.5 * angle);
  q[1] = axis[0] * s;
  q[2] = axis[1] * s;
  q[3] = axis[2] * s;
}
/* quaternion from XYZ Euler angles in degrees (extrinsic x, then y, then z) */
static inline void cm_quat_from_euler_deg(double q[4], const double e[3]) {
  double ax[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  double qx[4], qy[4], qz[4], t[4];
  cm_quat_from_axis_angle(qx, ax[0], e[0] * CM_PI / 180);
  cm_quat_from_axis_angle(qy, ax[1], e[1] * CM_PI / 180);
  cm_quat_from_axis_angle(qz, ax[2], e[2] * CM_PI / 180);
  cm_quat_mul(t, qy, qx);
  cm_quat_mul(q, qz, t);
}

#endif
