"""ctypes declarations of the public C API (include/comply/*.h) and the loading of libcomply.so.

The structures below mirror the C structs field for field. tests/python/test_layout.py compares
every offset and size with a C program built from the same headers (tests/python/layout_probe.c,
which walks cmModel and cmData through the field lists of comply/fields.h), so a field added in C
and not here fails a test instead of shifting memory.

The library is found, in this order:
  1. the environment variable COMPLY_LIBRARY (a path to libcomply.so);
  2. _paths.py next to this file, written by CMake into an installed copy of the package;
  3. the build tree of the source checkout this package sits in: ../../build/libcomply.so;
  4. the system: ctypes.util.find_library("comply") (an installed prefix on the loader's path).
Calls through ctypes.CDLL release the GIL, so cm_step runs in parallel from Python threads.
"""

import ctypes
import ctypes.util
import os

from ._errors import LibraryNotFoundError

c_int, c_long, c_double, c_char_p, c_void_p = (ctypes.c_int, ctypes.c_long, ctypes.c_double,
                                                ctypes.c_char_p, ctypes.c_void_p)
c_size_t, c_uint64 = ctypes.c_size_t, ctypes.c_uint64

CM_WARN_COUNT = 8
CM_TIMER_COUNT = 9
MESSAGE_SIZE = 512


def _d(n):
    return c_double * n


class cmSourceLoc(ctypes.Structure):
    _fields_ = [("line", c_int), ("col", c_int)]


class cmOptions(ctypes.Structure):
    _fields_ = [
        ("timestep", c_double), ("duration", c_double), ("steps", c_long),
        ("gravity", _d(3)), ("integrator", c_int), ("substeps", c_int),
        ("output_every", c_int), ("max_speed", c_double), ("max_contacts", c_long),
        ("vtk", c_int), ("allow_initial_overlap", c_int), ("solver_tolerance", c_double),
    ]


class cmGeomDef(ctypes.Structure):
    _fields_ = [
        ("type", c_int), ("radius", c_double), ("refine", c_int), ("size", _d(3)),
        ("divisions", c_int), ("file", c_char_p), ("scale", c_double), ("repair", c_int),
        ("mesh", c_void_p), ("normal", _d(3)), ("offset", c_double), ("loc", cmSourceLoc),
    ]


class cmMesh(ctypes.Structure):
    _fields_ = [
        ("nvert", c_int), ("nface", c_int), ("vert", ctypes.POINTER(c_double)),
        ("face", ctypes.POINTER(c_int)), ("face_normal", ctypes.POINTER(c_double)),
        ("face_area", ctypes.POINTER(c_double)), ("vert_areavec", ctypes.POINTER(c_double)),
    ]


class cmDeformableDef(ctypes.Structure):
    _fields_ = [
        ("material", c_int), ("young", c_double), ("poisson", c_double), ("cells", c_int * 3),
        ("has_fixed", c_int), ("fixed_min", _d(3)), ("fixed_max", _d(3)), ("attach", c_char_p),
        ("attach_min", _d(3)), ("attach_max", _d(3)), ("scheme", c_int), ("rayleigh_mass", c_double),
        ("rayleigh_stiffness", c_double), ("loc", cmSourceLoc),
    ]


class cmBodyDef(ctypes.Structure):
    _fields_ = [
        ("name", c_char_p), ("alias", c_char_p), ("geom", cmGeomDef), ("density", c_double),
        ("mass", c_double), ("has_com", c_int), ("com", _d(3)), ("has_inertia", c_int),
        ("inertia", _d(9)), ("position", _d(3)), ("orientation", _d(4)), ("velocity", _d(3)),
        ("angular_velocity", _d(3)), ("motion", c_int), ("force", _d(3)), ("moment", _d(3)),
        ("deformable", cmDeformableDef), ("loc", cmSourceLoc),
    ]


class cmRuleDef(ctypes.Structure):
    _fields_ = [
        ("pair", c_char_p * 2), ("law", c_int), ("ka", c_double), ("step_damping", c_double),
        ("stiffness_damping", c_double), ("elastic_repulsion", c_double), ("play", c_double),
        ("contact_time", c_double), ("mass", c_int), ("stiffness", c_double),
        ("damping", c_double), ("friction", c_double), ("stick_velocity", c_double),
        ("min_period", c_double), ("method", c_int), ("direction", c_int), ("integration", c_int), ("loc", cmSourceLoc),
    ]


class cmJointDef(ctypes.Structure):
    _fields_ = [("body", c_char_p * 2), ("anchor", _d(3)), ("loc", cmSourceLoc)]


class cmScene(ctypes.Structure):
    _fields_ = [
        ("name", c_char_p), ("file", c_char_p), ("dir", c_char_p), ("opt", cmOptions),
        ("nbody", c_int), ("body", ctypes.POINTER(cmBodyDef)), ("nrule", c_int),
        ("rule", ctypes.POINTER(cmRuleDef)), ("njoint", c_int),
        ("joint", ctypes.POINTER(cmJointDef)),
    ]


_P = ctypes.POINTER


class cmPairDetection(ctypes.Structure):
    _fields_ = [("vertex_body", c_int * 2), ("half_area", c_int), ("shared", c_int),
                ("edges", c_int), ("contour", c_int)]


class cmModel(ctypes.Structure):
    _fields_ = [
        ("nbody", c_int), ("ngeom", c_int), ("nvert", c_int), ("nface", c_int),
        ("nrule", c_int), ("nalias", c_int), ("nclass", c_int), ("njoint", c_int),
        ("nnode", c_int), ("ntet", c_int), ("ndvert", c_int), ("ndface", c_int),
        ("nridge", c_int), ("nfacet", c_int), ("nvgroup", c_int), ("ncell", c_int),
        ("ncellfacet", c_int),
        ("name", c_char_p), ("opt", cmOptions),
        ("body_name", _P(c_char_p)), ("body_alias", _P(c_int)), ("body_motion", _P(c_int)),
        ("body_geom", _P(c_int)), ("body_mass", _P(c_double)), ("body_invmass", _P(c_double)),
        ("body_inertia", _P(c_double)), ("body_invinertia", _P(c_double)),
        ("body_com", _P(c_double)), ("body_force", _P(c_double)), ("body_moment", _P(c_double)),
        ("body_pos0", _P(c_double)), ("body_quat0", _P(c_double)), ("body_vel0", _P(c_double)),
        ("body_angvel0", _P(c_double)),
        ("geom_type", _P(c_int)), ("geom_vertadr", _P(c_int)), ("geom_nvert", _P(c_int)),
        ("geom_faceadr", _P(c_int)), ("geom_nface", _P(c_int)), ("geom_plane", _P(c_double)),
        ("geom_aabb", _P(c_double)), ("geom_ball", _P(c_double)), ("geom_volume", _P(c_double)),
        ("geom_area", _P(c_double)),
        ("geom_nridge", _P(c_int)), ("geom_ridgeadr", _P(c_int)),
        ("geom_open_dir", _P(c_int)), ("geom_nconcave", _P(c_int)),
        ("geom_nfacet", _P(c_int)), ("geom_facetadr", _P(c_int)),
        ("geom_vgroupadr", _P(c_int)), ("geom_celladr", _P(c_int)), ("geom_grid", _P(c_double)),
        ("mesh_vert", _P(c_double)), ("mesh_vert_source", _P(c_int)), ("mesh_face", _P(c_int)),
        ("mesh_face_normal", _P(c_double)), ("mesh_face_area", _P(c_double)),
        ("mesh_vert_areavec", _P(c_double)), ("mesh_vert_pn", _P(c_double)),
        ("mesh_edge_pn", _P(c_double)), ("mesh_face_adj", _P(c_int)),
        ("mesh_face_ridge", _P(c_int)), ("mesh_ridge", _P(c_int)),
        ("facet_plane", _P(c_double)), ("facet_faceadr", _P(c_int)), ("facet_nface", _P(c_int)),
        ("mesh_facet_face", _P(c_int)), ("mesh_facet_box", _P(c_double)),
        ("mesh_face_facet", _P(c_int)),
        ("mesh_vgroup_box", _P(c_double)),
        ("cell_facetadr", _P(c_int)), ("cell_nfacet", _P(c_int)),
        ("cell_bound", _P(c_double)), ("cell_facet", _P(c_int)),
        ("geom_bvh", c_void_p),
        ("rule", _P(cmRuleDef)), ("rule_law_fn", _P(c_void_p)), ("rule_law_ctx", _P(c_void_p)),
        ("alias_name", _P(c_char_p)), ("alias_class", _P(c_int)), ("class_rule", _P(c_int)),
        ("class_first", _P(c_int)),
        ("joint_body", _P(c_int)), ("joint_anchor", _P(c_double)), ("joint_rule", _P(c_int)),
        ("body_nodeadr", _P(c_int)), ("body_nnode", _P(c_int)), ("body_tetadr", _P(c_int)),
        ("body_ntet", _P(c_int)), ("body_material", _P(c_int)), ("body_fem_scheme", _P(c_int)),
        ("body_rayleigh", _P(c_double)), ("body_lame", _P(c_double)),
        ("mesh_vert_node", _P(c_int)), ("node_body", _P(c_int)),
        ("node_attach", _P(c_int)), ("node_anchor", _P(c_double)), ("node_fixed", _P(c_int)),
        ("node_pos0", _P(c_double)), ("node_vel0", _P(c_double)),
        ("node_mass", _P(c_double)), ("tet_node", _P(c_int)), ("tet_dminv", _P(c_double)),
        ("tet_vol", _P(c_double)),
        ("nnote", c_int), ("note", _P(c_char_p)),
    ]


class cmContact(ctypes.Structure):
    _fields_ = [
        ("body", c_int * 2), ("pair", c_int), ("vert", c_int), ("face", c_int), ("flags", c_int),
        ("p0", _d(3)), ("p1", _d(3)), ("n", _d(3)), ("dist", c_double), ("area", c_double),
        ("force", c_double), ("ftan", _d(3)),
    ]


class cmContactPair(ctypes.Structure):
    _fields_ = [
        ("body", c_int * 2), ("rule", c_int), ("first", c_int), ("points", c_int),
        ("area", c_double), ("max_penetration", c_double), ("force", _d(3)),
        ("max_pressure", c_double),
    ]


class cmData(ctypes.Structure):
    _fields_ = [
        ("step", c_long), ("time", c_double),
        ("body_xpos", _P(c_double)), ("body_xquat", _P(c_double)), ("body_xvel", _P(c_double)),
        ("body_cpos", _P(c_double)), ("body_cvel", _P(c_double)),
        ("body_angvel", _P(c_double)), ("body_aabb", _P(c_double)),
        ("ncontact", c_int), ("maxcontact", c_int), ("contact", _P(cmContact)),
        ("npair", c_int), ("maxpair", c_int), ("pair", _P(cmContactPair)),
        ("solver_iter", c_int), ("solver_residual", c_double), ("solver_max_iter", c_int),
        ("solver_max_residual", c_double), ("solver_solves", c_long),
        ("solver_total_iter", c_long), ("solver_failed_solves", c_long),
        ("solver_retries", c_long), ("soft_rows", c_long), ("soft_factor", c_double),
        ("energy", c_double), ("energy_low", c_double), ("energy_scale", c_double),
        ("energy_growth", c_double), ("energy_first_step", c_long), ("energy_body", c_int),
        ("energy_monitor", c_int),
        ("depth_ratio", c_double), ("depth_first_step", c_long), ("depth_body_a", c_int),
        ("depth_body_b", c_int),
        ("tunnel_first_step", c_long), ("tunnel_body_a", c_int), ("tunnel_body_b", c_int),
        ("tunnel_speed", c_double), ("tunnel_thickness", c_double),
        ("warning", c_int * CM_WARN_COUNT), ("message", ctypes.c_char * MESSAGE_SIZE),
        ("timer", c_double * CM_TIMER_COUNT), ("internal", c_void_p),
        ("body_dv", _P(c_double)), ("body_xfrc", _P(c_double)),
        ("node_pos", _P(c_double)), ("node_vel", _P(c_double)),
    ]


class cmCheckpointInfo(ctypes.Structure):
    _fields_ = [("step", ctypes.c_long), ("time", c_double), ("timestep", c_double),
                ("nbody", c_int), ("model_fingerprint", c_uint64),
                ("scene_fingerprint", c_uint64)]


STRUCTS = {c.__name__: c for c in (cmSourceLoc, cmOptions, cmGeomDef, cmMesh, cmDeformableDef,
                                   cmBodyDef,
                                   cmRuleDef, cmJointDef, cmScene, cmModel, cmContact,
                                   cmContactPair, cmData, cmCheckpointInfo)}

_ERR = (c_char_p, c_size_t)
_M, _D, _S = _P(cmModel), _P(cmData), _P(cmScene)

# name: (restype, argtypes)
_SIGNATURES = {
    "cm_version": (c_char_p, ()),
    "cm_status_name": (c_char_p, (c_int,)),
    "cm_warning_name": (c_char_p, (c_int,)),
    "cm_warning_help": (c_char_p, (c_int,)),
    "cm_timer_name": (c_char_p, (c_int,)),
    "cm_options_default": (cmOptions, ()),
    "cm_body_def_default": (cmBodyDef, ()),
    "cm_rule_def_default": (cmRuleDef, ()),
    "cm_joint_def_default": (cmJointDef, ()),
    "cm_mesh_new": (_P(cmMesh), (c_int, c_int)),
    "cm_mesh_free": (None, (_P(cmMesh),)),
    "cm_scene_new": (_S, (c_char_p,)),
    "cm_scene_free": (None, (_S,)),
    "cm_scene_add_body": (c_int, (_S, _P(cmBodyDef)) + _ERR),
    "cm_scene_add_rule": (c_int, (_S, _P(cmRuleDef)) + _ERR),
    "cm_scene_add_joint": (c_int, (_S, _P(cmJointDef)) + _ERR),
    "cm_scene_validate": (c_int, (_S,) + _ERR),
    "cm_scene_load": (c_int, (c_char_p, _P(_S)) + _ERR),
    "cm_scene_parse": (c_int, (c_char_p, c_size_t, c_char_p, _P(_S)) + _ERR),
    "cm_model_compile": (c_int, (_S, _P(_M)) + _ERR),
    "cm_model_free": (None, (_M,)),
    "cm_model_pair_rule": (c_int, (_M, c_int, c_int)),
    "cm_model_pair_detection": (c_int, (_M, c_int, c_int, _P(cmPairDetection))),
    "cm_model_body_index": (c_int, (_M, c_char_p)),
    "cm_law_name": (c_char_p, (c_int,)),
    "cm_method_name": (c_char_p, (c_int,)),
    "cm_motion_name": (c_char_p, (c_int,)),
    "cm_data_new": (_D, (_M,)),
    "cm_data_free": (None, (_D,)),
    "cm_data_reset": (None, (_M, _D)),
    "cm_data_copy": (c_int, (_M, _D, _D)),
    "cm_step": (c_int, (_M, _D)),
    "cm_collide": (c_int, (_M, _D)),
    "cm_point_inside": (c_int, (_M, _D, c_int, _P(c_double))),
    "cm_data_vertex_pressure": (c_int, (_M, _D, c_int, c_void_p, c_void_p) + _ERR),
    "cm_data_hash": (c_uint64, (_M, _D)),
    "cm_data_energy": (None, (_M, _D, _P(c_double), _P(c_double))),
    "cm_data_momentum": (None, (_M, _D, _P(c_double), _P(c_double))),
    "cm_checkpoint_write": (c_int, (_M, _D, c_char_p) + _ERR),
    "cm_checkpoint_read": (c_int, (_M, _D, c_char_p) + _ERR),
    "cm_checkpoint_info": (c_int, (c_char_p, _P(cmCheckpointInfo)) + _ERR),
    "cm_model_fingerprint": (c_uint64, (_M,)),
    "cm_model_scene_fingerprint": (c_uint64, (_M,)),
    "cm_vtk_write_body": (c_int, (_M, _D, c_int, c_char_p) + _ERR),
    "cm_advise_contact_time_restitution": (c_int, (c_double, _P(c_double)) + _ERR),
    "cm_advise_contact_time_duration": (c_int, (c_double, _P(c_double)) + _ERR),
    "cm_advise_contact_time_er": (c_int, (c_double, _P(c_double)) + _ERR),
    "cm_advise_restitution": (c_int, (c_double, _P(c_double)) + _ERR),
    "cm_advise_step_damping_for_restitution": (c_int, (c_double, _P(c_double)) + _ERR),
    "cm_advise_ka_pressure": (c_int, (c_double, c_double, _P(c_double)) + _ERR),
}

_lib = None


def _candidates():
    env = os.environ.get("COMPLY_LIBRARY")
    if env:
        # an explicit choice: no fallback, so that a wrong path is reported, not hidden
        return [env]
    out = []
    try:
        from . import _paths  # written by CMake into an installed copy

        out.append(_paths.LIBRARY)
    except ImportError:
        pass
    here = os.path.dirname(os.path.abspath(__file__))
    out.append(os.path.join(here, "..", "..", "build", "libcomply.so"))
    found = ctypes.util.find_library("comply")
    if found:
        out.append(found)
    out.append("libcomply.so")  # the loader's own search (LD_LIBRARY_PATH, ld.so.cache)
    return out


def library():
    """The loaded libcomply.so (a ctypes.CDLL with the signatures set), loaded on first use."""
    global _lib
    if _lib is not None:
        return _lib
    tried = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            tried.append(path + " (no such file)")
            continue
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
            continue
        for name, (res, args) in _SIGNATURES.items():
            f = getattr(lib, name)
            f.restype = res
            f.argtypes = list(args)
        _lib = lib
        return lib
    raise LibraryNotFoundError("libcomply.so not found; set COMPLY_LIBRARY to its path or build "
                               "the comply_shared target (cmake --build build). Tried: "
                               + "; ".join(tried))
