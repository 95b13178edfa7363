"""Scene, Model and Data over the C API (docs/python.md).

Mirrors include/comply/: a Scene is a cmScene (the builder and the YAML loader), a Model a
compiled cmModel (read-only), a Data a cmData (state, contacts, counters) of one Model. Arrays are
numpy views of the C memory, without copies: writing into a state view changes the state the next
step starts from. Every view holds (through its base) the _Owner that frees the C object, so the
memory stays valid as long as any view of it is alive, and no reference cycle delays the free; the
contact views are the exception that the C API imposes: the contact buffer may move when it grows,
so `Data.contacts` and `Data.pairs` are valid until the next step(), collide(), reset() or copy
into that Data (take .copy() to keep).
"""

import ctypes
import os
import threading
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from . import _lib as L
from ._errors import ArgumentError, CheckpointWarning, OutOfMemoryError, error_for

_ERRSZ = 2048

# the enumerations of scene.h, by the names the scene file uses (docs/scene-format.md)
ENUMS = {
    "geom": ["none", "sphere", "box", "mesh", "plane"],
    "motion": ["dynamic", "fixed", "prescribed", "ignored", "deformable"],
    "material": ["neo_hookean", "corotated", "linear"],
    "fem_scheme": ["backward_euler", "midpoint"],
    "law": ["contact_time", "area_compliant", "linear", "none"],
    "method": ["vertex", "two_way", "vertex_edge", "contour", "auto"],
    "direction": ["auto", "first"],
    "mass": ["min", "effective"],
    "integration": ["default", "implicit", "explicit"],
    "integrator": ["implicit", "explicit"],
}

def _lib():
    return L.library()


def _node_box(v, what, key, head):
    """the box of deformable.fixed or .attach, as the scene file writes it ({min, max}, with
    {body} first for attach) or as a tuple ((min, max), or (body, (min, max))); each corner
    three finite numbers (a bare ValueError or a TypeError from unpacking named nothing)"""
    pair = "((x, y, z), (x, y, z))"
    form = "{%smin: [x, y, z], max: [x, y, z]} or %s" % (
        "".join("%s: ..., " % h for h in head), "(body, %s)" % pair if head else pair)
    try:
        if isinstance(v, dict):
            if set(v) != set(head) | {"min", "max"}:
                raise ValueError
            vals = [v[h] for h in head] + [v["min"], v["max"]]
        else:
            vals = list(v)
            if head:
                vals = [vals[0]] + list(vals[1]) if len(vals) == 2 else None
            if vals is None or len(vals) != len(head) + 2:
                raise ValueError
        corners = []
        for c in vals[len(head):]:
            c = [float(x) for x in c]
            if len(c) != 3 or not all(np.isfinite(c)):
                raise ValueError
            corners.append(c)
    except (TypeError, ValueError):
        raise ArgumentError("%s: %s must be %s (got %r)" % (what, key, form, v)) from None
    return tuple(vals[:len(head)]) + tuple(corners)


def _set_deformable(f, spec, what):
    """cmDeformableDef fields from a dict (the keys of the scene file's deformable section)"""
    for k, v in dict(spec).items():
        if k == "material":
            f.material = _enum("material", v)
        elif k == "integrator":
            f.scheme = _enum("fem_scheme", v)
        elif k == "cells":
            c = [v] * 3 if isinstance(v, (int, float, np.number)) else list(v)
            if len(c) != 3 or not all(isinstance(x, (int, np.integer)) and
                                      -2 ** 31 <= int(x) < 2 ** 31 for x in c):
                # (2.7 cells became 2, 2**32 + 1 became 1)
                raise ArgumentError("%s: cells must be one integer or three (got %r)" % (what, v))
            c = [int(x) for x in c]
            if min(c) < 1:  # (0, 0, 0 is the C default: the geometry's; a 0 given is refused)
                raise ArgumentError("%s: cells must be at least 1 (got %r)" % (what, v))
            f.cells[:] = c
        elif k == "fixed":
            lo, hi = _node_box(v, what, "fixed", ())
            f.fixed_min[:] = lo
            f.fixed_max[:] = hi
            f.has_fixed = 1
        elif k == "attach":
            body, lo, hi = _node_box(v, what, "attach", ("body",))
            if not isinstance(body, str):
                raise ArgumentError("%s: attach: body must be a body name (got %r)" % (what, body))
            f.attach = _cstr(body)
            f.attach_min[:] = lo
            f.attach_max[:] = hi
        elif k in ("young", "poisson"):
            setattr(f, k, float(v))
        elif k == "rayleigh":
            for rk, rv in dict(v).items():
                if rk not in ("mass", "stiffness"):
                    raise ArgumentError("%s: rayleigh: unknown key %r (mass, stiffness)" % (what, rk))
                setattr(f, "rayleigh_" + rk, float(rv))
        else:
            raise ArgumentError("%s: unknown key %r (material, young, poisson, cells, fixed, "
                                "attach, integrator, rayleigh)" % (what, k))


def _check(status, err):
    if status != 0:
        raise error_for(status, err.value.decode("utf-8", "replace"))


def _enum(kind, value):
    names = ENUMS[kind]
    if isinstance(value, int) and not isinstance(value, bool):
        # an index beyond the C int wrapped around to a valid one (2**32 + 1 was `fixed`);
        # the library names any other out-of-range index
        if not -2 ** 31 <= value < 2 ** 31:
            raise ArgumentError("%s must be one of %s, or its index (got %r)"
                                % (kind, ", ".join(names), value))
        return value
    if value not in names:
        raise ArgumentError("%s must be one of %s (got %r)" % (kind, ", ".join(names), value))
    return names.index(value)


def _set_field(struct, key, value, enum_kind=None, where="definition"):
    """Set struct.key from a Python value: numbers, sequences for arrays, str for char*, enum
    names for enumerations."""
    ftype = dict(struct._fields_).get(key)
    if ftype is None:
        raise ArgumentError("%s has no field %r" % (where, key))
    if enum_kind is not None:
        setattr(struct, key, _enum(enum_kind, value))
    elif ftype is L.c_char_p:
        setattr(struct, key, None if value is None else _cstr(value))
    elif issubclass(ftype, ctypes.Array):
        vals = np.asarray(value, dtype=float).ravel()
        arr = getattr(struct, key)
        if vals.size != len(arr):
            raise ArgumentError("%s: %s needs %d numbers (got %d)" % (where, key, len(arr),
                                                                      vals.size))
        for i, v in enumerate(vals):
            arr[i] = float(v)
    else:
        # an integer field takes an integral number in its C range (ctypes wraps 2**64 + 7
        # to 7 and truncates 2.7 to 2 without a word)
        if issubclass(ftype, ctypes._SimpleCData) and ftype._type_ in "bBhHiIlLqQ":
            bits = 8 * ctypes.sizeof(ftype)
            lo, hi = (0, 2 ** bits) if ftype._type_.isupper() else (-2 ** (bits - 1),
                                                                     2 ** (bits - 1))
            if not isinstance(value, (int, np.integer)) or not lo <= int(value) < hi:
                raise ArgumentError("%s: %s must be an integer from %d to %d (got %r)"
                                    % (where, key, lo, hi - 1, value))
            value = int(value)
        try:
            setattr(struct, key, value)
        except (TypeError, OverflowError) as e:
            raise ArgumentError("%s: %s: %s" % (where, key, e)) from None


def _address(ptr):
    return ctypes.cast(ptr, ctypes.c_void_p).value


def _view(owner, addr, ctype, shape, writable):
    """A numpy array over `addr` (C memory owned by `owner`) that keeps `owner` alive."""
    n = int(np.prod(shape)) if len(shape) else 1
    if n == 0 or not addr:
        a = np.zeros(shape, dtype=_np_dtype(ctype))
    else:
        buf = (ctype * n).from_address(addr)
        buf._comply_owner = owner  # the ctypes array is the numpy array's base
        # read-only views over a read-only buffer: a cleared flag alone could be set again
        # (a.flags.writeable = True, or a write through a.base), and a model array written that
        # way crashed the next step
        src = buf if writable else memoryview(buf).cast("B").toreadonly()
        a = np.frombuffer(src, dtype=_np_dtype(ctype)).reshape(shape)
    if not writable:
        a.flags.writeable = False
    return a


_DTYPES = {}


def _np_dtype(ctype):
    return _dtype(ctype) if issubclass(ctype, ctypes.Structure) else np.dtype(ctype)


def _dtype(struct):
    """numpy structured dtype with the C struct's offsets and size."""
    if struct not in _DTYPES:
        _DTYPES[struct] = np.dtype(struct)
        assert _DTYPES[struct].itemsize == ctypes.sizeof(struct)
    return _DTYPES[struct]


def _field_address(struct_ptr, struct_type, name):
    return _address(struct_ptr) + getattr(struct_type, name).offset


class _Owner:
    """Owns one C object (a cmModel or a cmData) and frees it when the last reference goes: the
    Model or Data object, and every numpy view of its memory (through the view's base), hold
    it. `parent` keeps the model of a data alive as long as the data."""

    __slots__ = ("lib", "ptr", "free", "parent", "__weakref__")

    def __init__(self, ptr, free, parent=None):
        self.lib = _lib()
        self.ptr = ptr
        self.free = getattr(self.lib, free)
        self.parent = parent

    def __del__(self):
        if self.ptr:
            self.free(self.ptr)
            self.ptr = None


# ---------------------------------------------------------------------------------------------
# Scene


_OPTION_ENUMS = {"integrator": "integrator"}
_GEOM_KEYS = {"radius", "refine", "size", "divisions", "file", "scale", "repair", "normal",
              "offset"}
_BODY_ENUMS = {"motion": "motion"}
_RULE_ENUMS = {"law": "law", "method": "method", "direction": "direction", "mass": "mass",
               "integration": "integration"}


def _cstr(value, what="a string"):
    """value as the bytes of a C string; a NUL inside would cut it there (a checkpoint written
    to 'state' for 'state\\0.ckpt', body 'a\\0b' named 'a'): refused, as Python's open() does"""
    b = os.fsencode(value)
    if b"\0" in b:
        raise ArgumentError("%s must not contain a NUL character (got %r)" % (what, value))
    return b


class Scene:
    """A cmScene: the mutable description of bodies, rules, joints and options.

    Scene(name, **options) starts an empty scene (options as in the `scene:` section:
    timestep, duration, steps, gravity, integrator, substeps, max_speed, max_contacts, ...);
    Scene.load(path) and Scene.parse(text) read YAML (docs/scene-format.md). compile() gives the
    Model."""

    def __init__(self, name="scene", **options):
        self._lib = _lib()
        self._p = self._lib.cm_scene_new(_cstr(name))
        if not self._p:
            raise OutOfMemoryError("cm_scene_new: no memory", 5)
        self.set_options(**options)

    @classmethod
    def _wrap(cls, ptr):
        self = cls.__new__(cls)
        self._lib = _lib()
        self._p = ptr
        return self

    @classmethod
    def load(cls, path):
        """Parse a YAML scene file; errors raise with the file:line:column text."""
        lib, err, out = _lib(), ctypes.create_string_buffer(_ERRSZ), ctypes.POINTER(L.cmScene)()
        _check(lib.cm_scene_load(_cstr(path), ctypes.byref(out), err, _ERRSZ), err)
        return cls._wrap(out)

    @classmethod
    def parse(cls, text, name="<string>"):
        """Parse YAML text; `name` stands for the file name in messages."""
        lib, err, out = _lib(), ctypes.create_string_buffer(_ERRSZ), ctypes.POINTER(L.cmScene)()
        data = text.encode() if isinstance(text, str) else bytes(text)
        _check(lib.cm_scene_parse(data, len(data), _cstr(name), ctypes.byref(out), err,
                                  _ERRSZ), err)
        return cls._wrap(out)

    def __del__(self):
        p = getattr(self, "_p", None)
        if p:
            self._lib.cm_scene_free(p)
            self._p = None

    def __copy__(self):
        # a shallow copy would share the C scene and free it twice (a crash)
        raise TypeError("a comply.Scene cannot be copied: build or load another one")

    def __deepcopy__(self, memo):
        raise TypeError("a comply.Scene cannot be copied: build or load another one")

    def __repr__(self):
        return "<comply.Scene %r: %d bodies>" % (self.name, self.nbody)

    @property
    def name(self):
        return self._p.contents.name.decode()

    @property
    def nbody(self):
        return self._p.contents.nbody

    @property
    def body_names(self):
        s = self._p.contents
        return [s.body[i].name.decode() for i in range(s.nbody)]

    @property
    def options(self):
        """The options as a dict (a copy; change them with set_options)."""
        o = self._p.contents.opt
        out = {k: getattr(o, k) for k, _ in L.cmOptions._fields_}
        out["gravity"] = tuple(o.gravity)
        out["integrator"] = ENUMS["integrator"][o.integrator]
        out["substeps"] = "auto" if o.substeps == 0 else o.substeps
        out["solver_tolerance"] = "auto" if o.solver_tolerance == 0 else o.solver_tolerance
        return out

    def set_options(self, **options):
        """Set scene options by name (`substeps="auto"`, `solver_tolerance="auto"` for the
        automatic choices)."""
        o = self._p.contents.opt
        for k, v in options.items():
            if k in ("substeps", "solver_tolerance") and v == "auto":
                v = 0
            _set_field(o, k, v, _OPTION_ENUMS.get(k), "options")
        return self

    def add_body(self, name, geom=None, **kw):
        """Add a body from cm_body_def_default() with the given fields; returns its index.

        geom: "sphere", "box", "mesh" or "plane", with radius, refine, size, divisions, file,
        scale, repair, normal, offset, or for a mesh given as arrays vertices (n, 3), m, and
        faces (m, 3), counter-clockwise seen from outside (copied); body fields: alias,
        density, mass, com, inertia (3 x 3), position, orientation (w x y z), velocity,
        angular_velocity, motion ("dynamic", "fixed", "prescribed", "ignored", "deformable"),
        force, moment; for motion "deformable", deformable = a dict of material
        ("neo_hookean", "corotated", "linear"), young (Pa), poisson, cells (int or 3 ints),
        fixed ((min xyz, max xyz), m, or {"min": .., "max": ..}), attach ((body name,
        (min xyz, max xyz)), or {"body": .., "min": .., "max": ..}), integrator
        ("backward_euler", "midpoint"), rayleigh ({"mass": alpha 1/s, "stiffness": beta s})
        (docs/deformable.md). Units SI (include/comply/scene.h)."""
        d = self._lib.cm_body_def_default()
        d.name = _cstr(name)
        vertices, faces = kw.pop("vertices", None), kw.pop("faces", None)
        if geom is None:
            geom = "mesh" if vertices is not None else "none"
        d.geom.type = _enum("geom", geom)
        for k, v in kw.items():
            if k in _GEOM_KEYS:
                _set_field(d.geom, k, v, None, "body %r geometry" % name)
            elif k == "com":
                d.has_com = 1
                _set_field(d, k, v, None, "body %r" % name)
            elif k == "inertia":
                d.has_inertia = 1
                _set_field(d, k, v, None, "body %r" % name)
            elif k == "deformable":
                _set_deformable(d.deformable, v, "body %r deformable" % name)
            elif k in ("name", "geom", "loc", "has_com", "has_inertia"):
                raise ArgumentError("body %r: %r cannot be set here" % (name, k))
            else:
                _set_field(d, k, v, _BODY_ENUMS.get(k), "body %r" % name)
        if vertices is None and faces is None:
            return self._add(self._lib.cm_scene_add_body, d)
        # a mesh given as arrays: a cmMesh for the call (cm_scene_add_body copies it)
        mesh = self._mesh(name, vertices, faces)
        try:
            d.geom.mesh = ctypes.cast(mesh, ctypes.c_void_p)
            return self._add(self._lib.cm_scene_add_body, d)
        finally:
            self._lib.cm_mesh_free(mesh)

    def _mesh(self, name, vertices, faces):
        if vertices is None or faces is None:
            raise ArgumentError("body %r: a mesh needs both vertices and faces" % name)
        v = np.ascontiguousarray(vertices, dtype=np.float64)
        raw = np.asarray(faces)
        # face indices: integers in the C int range (2**32 + 3 became 3, 2.9 became 2)
        if raw.size and (not np.issubdtype(raw.dtype, np.integer) or
                         raw.min() < -2 ** 31 or raw.max() >= 2 ** 31):
            raise ArgumentError("body %r: faces must be integer vertex indices (got dtype %s, "
                                "range %s to %s)" % (name, raw.dtype, raw.min(), raw.max()))
        f = np.ascontiguousarray(raw, dtype=np.intc)
        if v.ndim != 2 or v.shape[1] != 3 or f.ndim != 2 or f.shape[1] != 3:
            raise ArgumentError("body %r: vertices must be (n, 3) and faces (m, 3) (got %s and %s)"
                                % (name, v.shape, f.shape))
        mesh = self._lib.cm_mesh_new(len(v), len(f))
        if not mesh:
            raise OutOfMemoryError("cm_mesh_new: no memory", 5)
        ctypes.memmove(mesh.contents.vert, v.ctypes.data, v.nbytes)
        ctypes.memmove(mesh.contents.face, f.ctypes.data, f.nbytes)
        return mesh

    def add_rule(self, a="*", b="*", **kw):
        """Add an interaction rule between alias globs a and b from cm_rule_def_default(); the
        last matching rule wins. Fields: law ("contact_time", "area_compliant", "linear",
        "none"), ka, step_damping, stiffness_damping, elastic_repulsion, play, contact_time,
        mass ("min", "effective"), stiffness, damping, friction, stick_velocity, min_period,
        method, direction, integration ("default", "implicit", "explicit"). Returns its index
        in the scene, 0 for the first; in the compiled Model it is that index + 1 (the Model's
        rule 0 is the built-in default)."""
        d = self._lib.cm_rule_def_default()
        d.pair[0], d.pair[1] = _cstr(a), _cstr(b)
        for k, v in kw.items():
            if k in ("pair", "loc"):
                raise ArgumentError("rule: %r cannot be set here" % k)
            _set_field(d, k, v, _RULE_ENUMS.get(k), "rule (%s, %s)" % (a, b))
        return self._add(self._lib.cm_scene_add_rule, d)

    def add_joint(self, a, b="world", anchor=(0.0, 0.0, 0.0)):
        """Add a soft point link between bodies a and b ("world" for the world) at the world
        point `anchor` (m); its parameters come from the rule matching the pair. Returns its
        index."""
        d = self._lib.cm_joint_def_default()
        d.body[0], d.body[1] = _cstr(a), _cstr(b)
        _set_field(d, "anchor", anchor, None, "joint")
        return self._add(self._lib.cm_scene_add_joint, d)

    def _add(self, fn, d):
        err = ctypes.create_string_buffer(_ERRSZ)
        i = fn(self._p, ctypes.byref(d), err, _ERRSZ)
        if i < 0:
            raise ArgumentError(err.value.decode("utf-8", "replace"), 1)
        return i

    def validate(self):
        """Check the whole scene (cm_scene_validate: ranges, unique names, joint bodies, planes
        fixed); raise the first error as compile() would. Returns None."""
        err = ctypes.create_string_buffer(_ERRSZ)
        _check(self._lib.cm_scene_validate(self._p, err, _ERRSZ), err)

    def compile(self):
        """Compile into a Model (cm_model_compile). The scene stays usable."""
        err, out = ctypes.create_string_buffer(_ERRSZ), ctypes.POINTER(L.cmModel)()
        _check(self._lib.cm_model_compile(self._p, ctypes.byref(out), err, _ERRSZ), err)
        return Model(out)


def load(path):
    """Load a YAML scene file and compile it: the Model (Scene.load(path) to edit it first)."""
    return Scene.load(path).compile()


# ---------------------------------------------------------------------------------------------
# Model

# numeric arrays of cmModel (comply/fields.h CM_MODEL_ARRAYS): name -> (ctype, rows, cols)
_I, _F = ctypes.c_int, ctypes.c_double
MODEL_ARRAYS = {
    "body_alias": (_I, "nbody", 1), "body_motion": (_I, "nbody", 1),
    "body_geom": (_I, "nbody", 1), "body_mass": (_F, "nbody", 1),
    "body_invmass": (_F, "nbody", 1), "body_inertia": (_F, "nbody", (3, 3)),
    "body_invinertia": (_F, "nbody", (3, 3)), "body_com": (_F, "nbody", 3),
    "body_force": (_F, "nbody", 3), "body_moment": (_F, "nbody", 3),
    "body_pos0": (_F, "nbody", 3), "body_quat0": (_F, "nbody", 4),
    "body_vel0": (_F, "nbody", 3), "body_angvel0": (_F, "nbody", 3),
    "geom_type": (_I, "ngeom", 1), "geom_vertadr": (_I, "ngeom", 1),
    "geom_nvert": (_I, "ngeom", 1), "geom_faceadr": (_I, "ngeom", 1),
    "geom_nface": (_I, "ngeom", 1), "geom_plane": (_F, "ngeom", 4),
    "geom_aabb": (_F, "ngeom", 6), "geom_ball": (_F, "ngeom", 4),
    "geom_volume": (_F, "ngeom", 1), "geom_area": (_F, "ngeom", 1), "geom_nridge": (_I, "ngeom", 1),
    "geom_ridgeadr": (_I, "ngeom", 1), "geom_open_dir": (_I, "ngeom", 1),
    "geom_nconcave": (_I, "ngeom", 1),
    "geom_nfacet": (_I, "ngeom", 1),
    "geom_facetadr": (_I, "ngeom", 1), "geom_vgroupadr": (_I, "ngeom", 1),
    "geom_celladr": (_I, "ngeom", 1), "geom_grid": (_F, "ngeom", 3),
    "mesh_vert": (_F, "nvert", 3),
    "mesh_vert_source": (_I, "nvert", 1), "mesh_face": (_I, "nface", 3),
    "mesh_face_normal": (_F, "nface", 3), "mesh_face_area": (_F, "nface", 1),
    "mesh_vert_areavec": (_F, "nvert", 3), "mesh_vert_pn": (_F, "nvert", 3),
    "mesh_edge_pn": (_F, "nface", 9), "mesh_face_adj": (_I, "nface", 3),
    "mesh_face_ridge": (_I, "nface", 1), "mesh_ridge": (_I, "nridge", 4),
    "facet_plane": (_F, "nfacet", 4), "facet_faceadr": (_I, "nfacet", 1),
    "facet_nface": (_I, "nfacet", 1), "mesh_facet_face": (_I, "nface", 1),
    "mesh_facet_box": (_F, "nface", 6),
    "mesh_face_facet": (_I, "nface", 1),
    "mesh_vgroup_box": (_F, "nvgroup", 6),
    "cell_facetadr": (_I, "ncell", 1), "cell_nfacet": (_I, "ncell", 1),
    "cell_bound": (_F, "ncell", 4),
    "cell_facet": (_I, "ncellfacet", 1),
    "alias_class": (_I, "nalias", 1), "class_rule": (_I, "nclass", "nclass"),
    "class_first": (_I, "nclass", "nclass"), "joint_body": (_I, "njoint", 2),
    "joint_anchor": (_F, "njoint", 6), "joint_rule": (_I, "njoint", 1),
    "body_nodeadr": (_I, "nbody", 1), "body_nnode": (_I, "nbody", 1),
    "body_tetadr": (_I, "nbody", 1), "body_ntet": (_I, "nbody", 1),
    "body_material": (_I, "nbody", 1), "body_fem_scheme": (_I, "nbody", 1),
    "body_lame": (_F, "nbody", 2), "body_rayleigh": (_F, "nbody", 2), "mesh_vert_node": (_I, "nvert", 1),
    "node_body": (_I, "nnode", 1), "node_fixed": (_I, "nnode", 1),
    "node_attach": (_I, "nnode", 1), "node_anchor": (_F, "nnode", 3),
    "node_pos0": (_F, "nnode", 3), "node_vel0": (_F, "nnode", 3), "node_mass": (_F, "nnode", 1),
    "tet_node": (_I, "ntet", 4), "tet_dminv": (_F, "ntet", (3, 3)), "tet_vol": (_F, "ntet", 1),
}


def _shape(s, rows, cols):
    n = getattr(s, rows)
    if cols == 1:
        return (n,)
    if isinstance(cols, str):
        return (n, getattr(s, cols))
    if isinstance(cols, tuple):
        return (n,) + cols
    return (n, cols)


class Model:
    """A compiled cmModel, read-only. Its arrays (body_mass, body_inertia (nbody, 3, 3),
    mesh_vert, ... as in include/comply/model.h) are read-only numpy views of the C memory."""

    def __init__(self, ptr):
        self._owner = _Owner(ptr, "cm_model_free")
        self._lib = self._owner.lib
        self._p = ptr
        self._s = ptr.contents
        self._views = {}

    def __setattr__(self, name, value):
        if name in MODEL_ARRAYS:  # (it replaced the read-only array as Python saw it)
            raise AttributeError("Model.%s is a read-only view of the compiled model" % name)
        object.__setattr__(self, name, value)

    def __getattr__(self, name):
        spec = MODEL_ARRAYS.get(name)
        if spec is None:
            raise AttributeError(name)
        views = self.__dict__["_views"]
        if name not in views:
            ctype, rows, cols = spec
            views[name] = _view(self._owner, _address(getattr(self._s, name)), ctype,
                                _shape(self._s, rows, cols), False)
        return views[name]

    def __repr__(self):
        return "<comply.Model %r: %d bodies, %d vertices, %d faces, %d rules, timestep %g s>" % (
            self.name, self.nbody, self.nvert, self.nface, self.nrule, self.timestep)

    name = property(lambda self: self._s.name.decode())
    nbody = property(lambda self: self._s.nbody)
    ngeom = property(lambda self: self._s.ngeom)
    nvert = property(lambda self: self._s.nvert)
    nface = property(lambda self: self._s.nface)
    nrule = property(lambda self: self._s.nrule)
    njoint = property(lambda self: self._s.njoint)
    nnode = property(lambda self: self._s.nnode, doc="nodes of the deformable bodies")
    ntet = property(lambda self: self._s.ntet, doc="their tetrahedra")
    timestep = property(lambda self: self._s.opt.timestep)
    steps = property(lambda self: self._s.opt.steps, doc="steps of the scene's duration")
    gravity = property(lambda self: tuple(self._s.opt.gravity))

    @property
    def body_names(self):
        return [self._s.body_name[i].decode() for i in range(self._s.nbody)]

    @property
    def fingerprint(self):
        """cm_model_fingerprint: bodies, masses, geometries' sizes, timestep (a checkpoint of
        another one is refused)."""
        return self._lib.cm_model_fingerprint(self._p)

    @property
    def scene_fingerprint(self):
        """cm_model_scene_fingerprint: everything else a step reads (rules, joints, forces,
        motions, meshes, solver options; not names, steps or output options)."""
        return self._lib.cm_model_scene_fingerprint(self._p)

    @property
    def notes(self):
        """compile-time notes ("FILE:LINE: ...")"""
        return [self._s.note[i].decode() for i in range(self._s.nnote)]

    def body(self, b):
        """A body's index from its name or index (KeyError if there is none)."""
        if isinstance(b, str):
            i = self._lib.cm_model_body_index(self._p, b.encode())
            if i < 0:
                raise KeyError("no body %r" % b)
            return i
        i = int(b)
        if not 0 <= i < self._s.nbody:
            raise KeyError("no body %d (the model has %d)" % (i, self._s.nbody))
        return i

    def pair_rule(self, a, b):
        """The Model's rule index between two bodies (rule 0 is the built-in default, the
        scene's rule i is i + 1), -1 if they never interact (law none, an ignored body, two
        non-dynamic bodies, the same body)."""
        return self._lib.cm_model_pair_rule(self._p, self.body(a), self.body(b))

    def pair_detection(self, a, b):
        """How the contacts of two bodies are found, the rule's method resolved for the pair
        (cm_model_pair_detection): a dict with "vertex_bodies" (the names of the bodies whose
        vertices are tested), "half_area", "shared" (auto's two-way: areas shared by depth),
        "edges", "contour"; None if they never interact."""
        pd = L.cmPairDetection()
        if not self._lib.cm_model_pair_detection(self._p, self.body(a), self.body(b),
                                                 ctypes.byref(pd)):
            return None
        names = self.body_names
        return {"vertex_bodies": [names[i] for i in pd.vertex_body if i >= 0],
                "half_area": bool(pd.half_area), "shared": bool(pd.shared),
                "edges": bool(pd.edges),
                "contour": bool(pd.contour)}

    def rule(self, i):
        """The resolved parameters of the Model's rule i as a dict (contact_time filled in);
        i from 0 (the built-in default) to nrule - 1."""
        if not 0 <= i < self._s.nrule:
            raise IndexError(i)
        r = self._s.rule[i]
        out = {}
        for k, _ in L.cmRuleDef._fields_:
            v = getattr(r, k)
            if k in _RULE_ENUMS:
                v = ENUMS[_RULE_ENUMS[k]][v]
            elif k == "pair":
                v = (v[0].decode(), v[1].decode())
            elif k == "loc":
                v = (v.line, v.col)
            out[k] = v
        return out

    def body_vertices(self, b):
        """The mesh vertices of body b in its frame, m, (nvert_b, 3) (empty for a plane)."""
        g = self.body_geom[self.body(b)]
        a, n = self.geom_vertadr[g], self.geom_nvert[g]
        return self.mesh_vert[a:a + n]

    def body_faces(self, b):
        """The triangles of body b, indices into body_vertices(b), (nface_b, 3)."""
        g = self.body_geom[self.body(b)]
        a, n = self.geom_faceadr[g], self.geom_nface[g]
        return self.mesh_face[a:a + n]

    def data(self):
        """A new Data at this model's initial state."""
        return Data(self)


# ---------------------------------------------------------------------------------------------
# Data

_STATE = ("body_cpos", "body_xquat", "body_cvel", "body_angvel",  # CM_DATA_STATE: writable
          "body_dv", "body_xfrc")                                     # and CM_DATA_INPUT
_DERIVED = ("body_xpos", "body_xvel", "body_aabb")                # CM_DATA_DERIVED: read-only
_BODY_COLS = {"body_cpos": 3, "body_xquat": 4, "body_cvel": 3, "body_angvel": 3, "body_dv": 6,
              "body_xfrc": 6,
              "body_xpos": 3, "body_xvel": 3, "body_aabb": 6}
_SCALARS = [k for k, t in L.cmData._fields_
            if t in (ctypes.c_long, ctypes.c_int, ctypes.c_double)
            and k not in ("ncontact", "maxcontact", "npair", "maxpair")]


_DATA_VIEWS = frozenset(_STATE + _DERIVED + ("node_pos", "node_vel", "warning", "timer"))


class Data:
    """A cmData of a Model: the state, the contacts of the last step, counters and timers.

    State views (writable, (nbody, 3) or (nbody, 4)): body_cpos (centre of mass, m),
    body_xquat (w x y z), body_cvel (m/s), body_angvel (rad/s, world). Derived views
    (read-only, recomputed by every step from the state): body_xpos (frame origin), body_xvel,
    body_aabb. Nodes of the deformable bodies (writable, (nnode, 3)): node_pos (m, world),
    node_vel (m/s). Scalars of cmData (time, solver_iter, energy, ...) are attributes; `nstep` is
    cmData.step (steps taken); `model` is the Model."""

    def __init__(self, model):
        self.model = model
        self._lib = model._lib
        self._mp = model._p
        p = self._lib.cm_data_new(model._p)
        if not p:
            raise OutOfMemoryError("cm_data_new: no memory", 5)
        # the owner frees the cmData; it (not this object) is what every view holds, and it
        # holds the model's owner: no reference cycle, the memory lives while a view does
        self._owner = _Owner(p, "cm_data_free", model._owner)
        self._p = p
        self._s = p.contents
        self._step_fn = self._lib.cm_step
        nb = model.nbody
        for name in _STATE + _DERIVED:
            v = _view(self._owner, _address(getattr(self._s, name)), ctypes.c_double,
                      (nb, _BODY_COLS[name]), name in _STATE)
            self.__dict__[name] = v
        for name in ("node_pos", "node_vel"):  # CM_DATA_NODES: writable
            self.__dict__[name] = _view(self._owner, _address(getattr(self._s, name)),
                                        ctypes.c_double, (model.nnode, 3), True)
        self.warning = _view(self._owner, _field_address(p, L.cmData, "warning"), ctypes.c_int,
                             (L.CM_WARN_COUNT,), False)
        self.timer = _view(self._owner, _field_address(p, L.cmData, "timer"), ctypes.c_double,
                           (L.CM_TIMER_COUNT,), False)

    def __getattr__(self, name):
        if name in _SCALARS:
            return getattr(self._s, name)
        raise AttributeError(name)

    def __setattr__(self, name, value):
        # `d.body_cvel = arr` bound a Python attribute over the view and left the C state as it
        # was (and `d.time = 5` showed 5 while the step kept its own time): refused
        if name in _SCALARS:
            raise AttributeError("Data.%s is read from the C data and cannot be set" % name)
        if name in self.__dict__ and name in _DATA_VIEWS:
            raise AttributeError("Data.%s is a view of the C data: write into it (d.%s[...] = "
                                 "values), do not rebind it" % (name, name))
        object.__setattr__(self, name, value)

    def __repr__(self):
        return "<comply.Data of %r: step %d, time %g s, %d contacts in %d pairs>" % (
            self.model.name, self.nstep, self.time, self.ncontact, self.npair)

    # -- stepping ---------------------------------------------------------------------------

    def step(self, n=1, _stop=None):
        """Advance n steps (cm_step, the GIL released during each). A failed step raises
        NumericError or LimitError with the library's diagnosis; the Data keeps its last good
        state."""
        f, m, d = self._step_fn, self._mp, self._p
        for _ in range(n):
            if _stop is not None and _stop.is_set():  # step_parallel interrupted
                break
            st = f(m, d)
            if st:
                raise error_for(st, self.message)
        return self

    def collide(self):
        """Contact detection at the current state, no dynamics (cm_collide): fills contacts
        and pairs with zero forces."""
        st = self._lib.cm_collide(self._mp, self._p)
        if st:
            raise error_for(st, self.message or "cm_collide failed")
        return self

    def reset(self):
        """Back to the model's initial state, counters, warnings and timers cleared."""
        self._lib.cm_data_reset(self._mp, self._p)
        return self

    def copy(self):
        """A new Data with everything a user can read copied (cm_data_copy)."""
        out = Data(self.model)
        st = self._lib.cm_data_copy(self._mp, out._p, self._p)
        if st:
            raise error_for(st, "cm_data_copy: the contact buffers could not grow")
        return out

    # -- scalars and counters ---------------------------------------------------------------

    nstep = property(lambda self: self._s.step, doc="steps taken (cmData.step)")
    ncontact = property(lambda self: self._s.ncontact)
    npair = property(lambda self: self._s.npair)
    message = property(lambda self: self._s.message.decode("utf-8", "replace"),
                       doc="diagnosis of the last failed step, '' if none")

    @property
    def warnings(self):
        """Warning counts by the library's names (cm_warning_name), e.g. {'solver_not_converged':
        0, ...}."""
        return {self._lib.cm_warning_name(i).decode(): int(self.warning[i])
                for i in range(L.CM_WARN_COUNT)}

    @property
    def timers(self):
        """Cumulative seconds per stage by the library's names (cm_timer_name)."""
        return {self._lib.cm_timer_name(i).decode(): float(self.timer[i])
                for i in range(L.CM_TIMER_COUNT)}

    def hash(self):
        """cm_data_hash: FNV-1a 64 of the step count and the state (docs/outputs.md)."""
        return int(self._lib.cm_data_hash(self._mp, self._p))

    def energies(self):
        """(kinetic, gravitational potential), J (cm_data_energy). (`energy`, the attribute, is
        cmData.energy: the monitor's total at the end of the last step.)"""
        k, p = ctypes.c_double(), ctypes.c_double()
        self._lib.cm_data_energy(self._mp, self._p, ctypes.byref(k), ctypes.byref(p))
        return k.value, p.value

    def momentum(self):
        """(linear kg m/s, angular about the origin kg m^2/s) of the dynamic bodies."""
        p, lm = (ctypes.c_double * 3)(), (ctypes.c_double * 3)()
        self._lib.cm_data_momentum(self._mp, self._p, p, lm)
        return np.array(p[:]), np.array(lm[:])

    # -- contacts ---------------------------------------------------------------------------

    @property
    def contacts(self):
        """The contact points of the last step (or collide()) as a read-only structured numpy
        view of cmContact: fields body (2: A penetrating, B penetrated), pair, vert (A's
        vertex, -1 if none), face (B's face that p1 lies on, -1 if none: B a plane, edge and
        contour contacts), flags, p0, p1, n (3 each), dist, area, force, ftan (3). Valid until
        the next step(), collide(), reset() or copy into this Data (the C buffer may move when
        it grows); .copy() it to keep it."""
        return _view(self._owner, _address(self._s.contact), L.cmContact, (self._s.ncontact,),
                     False)

    @property
    def pairs(self):
        """The body pairs in contact (cmContactPair): body (2), rule, first, points, area,
        max_penetration, force (3, on body A), max_pressure. Same lifetime as contacts."""
        return _view(self._owner, _address(self._s.pair), L.cmContactPair, (self._s.npair,),
                     False)

    @property
    def contact_pressure(self):
        """force / area per contact point, Pa (a new array; 0 where the area is 0)."""
        c = self.contacts
        out = np.zeros(len(c))
        np.divide(c["force"], c["area"], out=out, where=c["area"] > 0)
        return out

    def vertex_pressure(self, body):
        """(pressure Pa, penetration m) per vertex of a body from the current contacts
        (cm_data_vertex_pressure); new arrays in the order of Model.body_vertices."""
        b = self.model.body(body)
        g = self.model.body_geom[b]
        n = int(self.model.geom_nvert[g])
        p, pen = np.zeros(n), np.zeros(n)
        err = ctypes.create_string_buffer(_ERRSZ)
        _check(self._lib.cm_data_vertex_pressure(self._mp, self._p, b, p.ctypes.data,
                                                 pen.ctypes.data, err, _ERRSZ), err)
        return p, pen

    def body_vertices(self, body):
        """The mesh vertices of a body in world coordinates at the current pose, m (a new
        array): R(q) v + x, from body_xquat and body_xpos."""
        b = self.model.body(body)
        v = self.model.body_vertices(b)
        w, x, y, z = self.body_xquat[b]
        R = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                      [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                      [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])
        return v @ R.T + self.body_xpos[b]

    def point_inside(self, body, p):
        """True if the world point p is strictly inside the body at its current pose."""
        q = (ctypes.c_double * 3)(*[float(t) for t in p])
        return bool(self._lib.cm_point_inside(self._mp, self._p, self.model.body(body), q))

    # -- files ------------------------------------------------------------------------------

    def save_checkpoint(self, path):
        err = ctypes.create_string_buffer(_ERRSZ)
        _check(self._lib.cm_checkpoint_write(self._mp, self._p, _cstr(path), err, _ERRSZ),
               err)

    def load_checkpoint(self, path):
        """Read the state of a checkpoint of this model (cm_checkpoint_read), with the contacts
        and contact pairs of its step (format 12: d.contacts and d.pairs are those of the step
        that wrote it, as the outputs of that step show them). A checkpoint
        written with another version of the scene (the same bodies, masses and timestep, other
        interactions, joints, forces, motions, meshes or solver options: its scene_fingerprint,
        checkpoint_info) is loaded with a CheckpointWarning."""
        err = ctypes.create_string_buffer(_ERRSZ)
        _check(self._lib.cm_checkpoint_read(self._mp, self._p, _cstr(path), err, _ERRSZ),
               err)
        info = checkpoint_info(path)
        if info["scene_fingerprint"] != self._lib.cm_model_scene_fingerprint(self._mp):
            warnings.warn(CheckpointWarning(
                "checkpoint '%s' was written with another version of this scene (its "
                "interactions, joints, forces, motions, meshes or solver options differ): the "
                "state at step %d is loaded, and the steps from it follow this model"
                % (path, info["step"])), stacklevel=2)
        return self

    def write_vtk(self, body, path):
        err = ctypes.create_string_buffer(_ERRSZ)
        _check(self._lib.cm_vtk_write_body(self._mp, self._p, self.model.body(body),
                                           _cstr(path), err, _ERRSZ), err)


def step_parallel(datas, n=1, threads=None):
    """Step every Data n steps, several at once from a thread pool (cm_step releases the GIL).
    Each Data is stepped by one thread only; the results equal stepping them one after another.
    The first failure is raised after all have finished."""
    datas = list(datas)
    if not datas:
        return datas
    if len({id(d) for d in datas}) != len(datas):
        # one Data stepped by two threads at once corrupts it (a crash)
        raise ArgumentError("step_parallel: a Data is listed twice; each must be stepped by one "
                            "thread")
    stop = threading.Event()
    ex = ThreadPoolExecutor(max_workers=threads or min(len(datas), os.cpu_count() or 1))
    futures = [ex.submit(d.step, n, stop) for d in datas]
    try:
        for f in futures:
            f.exception()  # waits; a KeyboardInterrupt here leaves by the except below
    except BaseException:
        # Ctrl-C: every Data stops after the step it is in (each keeps a whole step's state),
        # and the threads are gone before the exception reaches the caller (they went on
        # stepping behind the caller's back, and the interpreter could not exit until they
        # had done all n)
        stop.set()
        ex.shutdown(wait=True, cancel_futures=True)
        raise
    ex.shutdown(wait=True)
    for f in futures:
        f.result()
    return datas


# ---------------------------------------------------------------------------------------------
# advice (include/comply/advise.h), for the examples and tests


def _advise(name, *args):
    lib, err, out = _lib(), ctypes.create_string_buffer(_ERRSZ), ctypes.c_double()
    _check(getattr(lib, name)(*args, ctypes.byref(out), err, _ERRSZ), err)
    return out.value


def contact_time_restitution(elastic_repulsion):
    """The restitution the contact_time law gives for e_r (cm_advise_contact_time_restitution)."""
    return _advise("cm_advise_contact_time_restitution", float(elastic_repulsion))


def contact_time_duration(elastic_repulsion):
    """The contact's duration over contact_time T for e_r (cm_advise_contact_time_duration)."""
    return _advise("cm_advise_contact_time_duration", float(elastic_repulsion))


def contact_time_er(restitution):
    """The e_r that gives a restitution (cm_advise_contact_time_er)."""
    return _advise("cm_advise_contact_time_er", float(restitution))


def area_compliant_restitution(step_damping):
    """Mean restitution 0.5 / (0.5 + step_damping) (cm_advise_restitution)."""
    return _advise("cm_advise_restitution", float(step_damping))


def version():
    return _lib().cm_version().decode()


def checkpoint_info(path):
    """The header of a checkpoint file (cm_checkpoint_info), checked as a read checks it without
    a model: a dict of step, time (s), timestep (s), nbody, model_fingerprint (what a read
    compares with the model's) and scene_fingerprint (Model.scene_fingerprint of the model that
    wrote it)."""
    err = ctypes.create_string_buffer(_ERRSZ)
    info = L.cmCheckpointInfo()
    _check(_lib().cm_checkpoint_info(_cstr(path), ctypes.byref(info), err, _ERRSZ), err)
    return {name: getattr(info, name) for name, _ in info._fields_}
