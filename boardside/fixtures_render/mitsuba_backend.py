"""Render a :class:`SceneSpec` with Mitsuba 3 (``llvm_ad_rgb``, CPU) and denoise with OIDN.

Only this module imports the ``[render]`` extra (mitsuba, drjit, pyoidn); importing it
without them raises :class:`RendererUnavailableError` with the install command.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from boardside.fixtures_render.camera import CameraModel, SourceView, distort_image, source_view
from boardside.fixtures_render.errors import RendererUnavailableError
from boardside.fixtures_render.geometry import TriMesh, frame_from_direction
from boardside.fixtures_render.scene import Environment, Light, Material, Part, SceneSpec, kelvin_to_rgb

VARIANT = "llvm_ad_rgb"
_lock = threading.Lock()
_mi: Any = None


def load_mitsuba() -> Any:
    """Import mitsuba and set the CPU variant once; a clear error when the extra is missing."""
    global _mi
    with _lock:
        if _mi is not None:
            return _mi
        try:
            import mitsuba as mi
        except ImportError as exc:
            raise RendererUnavailableError(
                "the fixture renderer needs the [render] extra: pip install '.[render]' "
                f"(and Debian's libllvm19: apt-get install libllvm19); import failed: {exc}"
            ) from None
        try:
            mi.set_variant(VARIANT)
        except Exception as exc:  # mitsuba raises ImportError/AttributeError variants when LLVM is missing
            raise RendererUnavailableError(
                f"mitsuba variant {VARIANT!r} is unavailable ({exc}); install libllvm19 "
                "(apt-get install libllvm19) or set DRJIT_LIBLLVM_PATH"
            ) from None
        _mi = mi
        return mi


def renderer_available() -> tuple[bool, str]:
    """(True, "") when mitsuba + pyoidn load, else (False, reason)."""
    try:
        load_mitsuba()
        import pyoidn  # noqa: F401
    except RendererUnavailableError as exc:
        return False, str(exc)
    except ImportError as exc:
        return False, f"pyoidn missing ({exc}); pip install '.[render]'"
    return True, ""


@dataclass
class RenderResult:
    """Linear RGB (h, w, 3) float32 in the *distorted output camera*, and optional per-pixel labels."""

    linear: npt.NDArray[np.float32]
    part_index: npt.NDArray[np.int32] | None  # index into SceneSpec.parts, -1 = nothing
    normal: npt.NDArray[np.float32] | None  # world-space geometric normal per pixel
    source: SourceView
    seconds: float


def _matrix(mi: Any, m: npt.NDArray[np.float64]) -> Any:
    return mi.ScalarTransform4f(m.tolist())


def _translate_scale_rotate(pos: npt.ArrayLike, rot: npt.NDArray[np.float64], scale: float) -> npt.NDArray[np.float64]:
    m = np.eye(4)
    m[:3, :3] = rot * scale
    m[:3, 3] = np.asarray(pos, dtype=np.float64)
    return m


class _Builder:
    def __init__(self, mi: Any, spec: SceneSpec) -> None:
        self.mi = mi
        self.spec = spec
        self.bsdf_cache: dict[Material, Any] = {}
        self.bitmap_cache: dict[tuple[str, tuple[float, float, float]], Any] = {}

    def texture(self, name: str, colour: tuple[float, float, float]) -> Any:
        key = (name, colour)
        if key not in self.bitmap_cache:
            arr = np.ascontiguousarray(self.spec.textures[name] * np.asarray(colour, np.float32)).astype(np.float32)
            self.bitmap_cache[key] = {
                "type": "bitmap",
                "bitmap": self.mi.Bitmap(arr),
                "raw": True,
                "filter_type": "bilinear",
                "wrap_mode": "repeat",
            }
        return self.bitmap_cache[key]

    def bsdf(self, m: Material) -> Any:
        if m in self.bsdf_cache:
            return self.bsdf_cache[m]
        refl: Any = self.texture(m.texture, m.color) if m.texture else {"type": "rgb", "value": list(m.color)}
        d: dict[str, Any]
        if m.kind == "diffuse":
            d = {"type": "diffuse", "reflectance": refl}
        elif m.kind == "paper":
            d = {
                "type": "roughplastic",
                "distribution": "ggx",
                "alpha": m.roughness,
                "int_ior": 1.4,
                "diffuse_reflectance": refl,
                "nonlinear": True,
            }
        elif m.kind == "metal":
            d = {"type": "roughconductor", "material": "Al", "alpha": m.roughness}
        else:
            d = {
                "type": "roughplastic",
                "distribution": "ggx",
                "alpha": max(m.roughness, 0.02),
                "int_ior": 1.49,
                "diffuse_reflectance": refl,
                "nonlinear": True,
            }
        if m.normal_map:
            d = {
                "type": "normalmap",
                "normalmap": {
                    "type": "bitmap",
                    "raw": True,
                    "bitmap": self.mi.Bitmap(self.spec.textures[m.normal_map]),
                    "filter_type": "bilinear",
                },
                "bsdf": d,
            }
        obj = self.mi.load_dict(d)
        self.bsdf_cache[m] = obj
        return obj

    def mesh(self, name: str, tm: TriMesh, bsdf: Any) -> Any:
        mi = self.mi
        props = mi.Properties()
        props["bsdf"] = bsdf
        mesh = mi.Mesh(
            name,
            vertex_count=len(tm.vertices),
            face_count=len(tm.faces),
            props=props,
            has_vertex_normals=True,
            has_vertex_texcoords=True,
        )
        p = mi.traverse(mesh)
        p["vertex_positions"] = mi.Float(np.ascontiguousarray(tm.vertices, dtype=np.float32).ravel())
        p["faces"] = mi.UInt32(np.ascontiguousarray(tm.faces, dtype=np.uint32).ravel())
        p["vertex_normals"] = mi.Float(np.ascontiguousarray(tm.normals, dtype=np.float32).ravel())
        p["vertex_texcoords"] = mi.Float(np.ascontiguousarray(tm.uvs, dtype=np.float32).ravel())
        p.update()
        return mesh

    def part(self, part: Part, out: dict[str, Any], names: list[str]) -> None:
        bsdf = self.bsdf(part.material)
        if part.mesh is not None:
            out[part.name] = self.mesh(part.name, part.mesh, bsdf)
            names.append(part.name)
        if part.cylinder is not None:
            p0, p1, r = part.cylinder
            out[part.name + "__cyl"] = {
                "type": "cylinder",
                "p0": list(p0),
                "p1": list(p1),
                "radius": r,
                "bsdf": bsdf,
            }
            names.append(part.name)
            axis = np.asarray(p1, dtype=np.float64) - np.asarray(p0, dtype=np.float64)
            frame = frame_from_direction(axis)
            out[part.name + "__cap"] = {
                "type": "disk",
                "bsdf": bsdf,
                "to_world": _matrix(self.mi, _translate_scale_rotate(p1, frame, r)),
            }
            names.append(part.name)


def _environment_bitmap(env: Environment) -> npt.NDArray[np.float32]:
    """A small equirectangular room map (Mitsuba envmap: +Y up, rotated to world +Z by the caller),
    with a bright window and a ceiling, clipped so that no tiny texel carries all the energy."""
    rng = np.random.default_rng(env.seed)
    h, w = 64, 128
    theta = (np.arange(h) + 0.5) / h * math.pi  # 0 = up
    phi = (np.arange(w) + 0.5) / w * 2 * math.pi
    tt, pp = np.meshgrid(theta, phi, indexing="ij")
    wall = np.asarray(kelvin_to_rgb(env.kelvin), np.float32) * np.asarray(rng.uniform(0.6, 1.0, 3), np.float32)
    up = np.clip(np.cos(tt), 0, 1)[..., None]
    base = env.strength * (0.55 + 0.9 * up)
    img = base * wall[None, None, :]
    below = tt > math.pi / 2
    img[below] *= 0.35  # the floor and the room below the table edge are darker
    # a window: a daylight rectangle around the horizon
    cphi = math.radians(env.yaw_deg)
    dphi = np.angle(np.exp(1j * (pp - cphi)))
    window = (np.abs(dphi) < math.radians(rng.uniform(12, 30))) & (tt > math.radians(50)) & (tt < math.radians(85))
    sky = np.asarray(kelvin_to_rgb(6500), np.float32)
    img[window] += env.window_strength * sky
    clip = max(float(np.percentile(img, 99.5)), 1e-4)
    return np.clip(img, 0, clip).astype(np.float32)


def sphere_radius_outside(li: Light, eye: npt.ArrayLike) -> float:
    """The radius to give a sphere light so that the camera at ``eye`` is outside it: its planned
    size, or 80 % of its distance from the camera when that is less (a camera inside an emitting
    sphere sees only its unlit inside: about 1 % of board renders came out black that way, session 9).
    The light's power is kept."""
    dist = float(np.linalg.norm(np.asarray(eye, np.float64) - np.asarray(li.position, np.float64)))
    return min(float(li.size), 0.8 * dist)


def _light_dicts(mi: Any, lights: list[Light], eye: npt.ArrayLike) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for i, li in enumerate(lights):
        colour = np.asarray(kelvin_to_rgb(li.kelvin))
        if li.kind == "sphere":
            radius = sphere_radius_outside(li, eye)
            radiance = li.power * 1e6 / (math.pi * radius**2)
            out[f"light_{i}"] = {
                "type": "sphere",
                "center": list(li.position),
                "radius": radius,
                "emitter": {"type": "area", "radiance": {"type": "rgb", "value": list(colour * radiance)}},
            }
        else:
            area = li.size**2
            radiance = li.power * 1e6 / area
            flip = np.diag([1.0, -1.0, -1.0])  # normal -z: facing the table
            out[f"light_{i}"] = {
                "type": "rectangle",
                "to_world": _matrix(mi, _translate_scale_rotate(li.position, flip, li.size / 2)),
                "emitter": {"type": "area", "radiance": {"type": "rgb", "value": list(colour * radiance)}},
            }
    return out


def _sensor_dict(mi: Any, camera: CameraModel, view: SourceView) -> dict[str, Any]:
    centre = camera.centre
    rot = camera.rotation
    forward = rot.T @ np.array([0.0, 0.0, 1.0])
    down = rot.T @ np.array([0.0, 1.0, 0.0])
    return {
        "type": "perspective",
        "fov": view.hfov_deg,
        "fov_axis": "x",
        "near_clip": 10.0,
        "far_clip": 20000.0,
        "to_world": mi.ScalarTransform4f().look_at(origin=list(centre), target=list(centre + forward), up=list(-down)),
        "film": {
            "type": "hdrfilm",
            "width": view.width,
            "height": view.height,
            "rfilter": {"type": "box"},
            "pixel_format": "rgb",
        },
    }


def build_scene(spec: SceneSpec, camera: CameraModel, view: SourceView) -> tuple[Any, list[str]]:
    mi = load_mitsuba()
    b = _Builder(mi, spec)
    d: dict[str, Any] = {"type": "scene"}
    names: list[str] = []
    for part in spec.parts:
        b.part(part, d, names)
    d.update(_light_dicts(mi, spec.lights, camera.centre))
    if spec.environment is not None:
        env = _environment_bitmap(spec.environment)
        d["environment"] = {
            "type": "envmap",
            "bitmap": mi.Bitmap(env),
            "to_world": mi.ScalarTransform4f().rotate([1, 0, 0], 90),
        }
    d["sensor"] = _sensor_dict(mi, camera, view)
    # plain path tracer for the colour (the aov wrapper costs ~3x per sample in llvm mode);
    # albedo/normals for the denoiser and the label pass come from a separate 1-spp aov render
    d["integrator"] = {"type": "path", "max_depth": 4, "rr_depth": 3}
    return mi.load_dict(d), names


def _labels(
    mi: Any, scene: Any, spec: SceneSpec, view: SourceView, shape_idx: Any, geo_normal: Any
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.float32]]:
    """Per-pixel part index (into ``spec.parts``; -1 = nothing) and world normal, in the output camera.

    The aov integrator's ``shape_index`` is the shape's Dr.Jit *registry id* (0 = no hit), not its
    position in ``scene.shapes()``: ids are looked up through ``scene.shapes_dr()``.
    """
    import drjit as dr

    shapes = scene.shapes()
    reg = np.asarray(dr.reinterpret_array(mi.UInt32, scene.shapes_dr()), dtype=np.int64)
    part_of = {p.name: i for i, p in enumerate(spec.parts)}
    lut = np.full(int(reg.max(initial=0)) + 2, -1, np.int32)
    for rid, shape in zip(reg.tolist(), shapes, strict=True):
        lut[rid] = part_of.get(str(shape.id()).split("__")[0], -1)
    idx = np.clip(np.asarray(shape_idx).round().astype(np.int64), 0, len(lut) - 1)
    hit = np.linalg.norm(geo_normal, axis=-1) > 0.5
    mapped = np.where(hit, lut[idx], -1).astype(np.int32)
    part_index = distort_image(mapped, view, nearest=True).astype(np.int32)
    normal = distort_image(np.ascontiguousarray(geo_normal), view, nearest=True).astype(np.float32)
    return part_index, normal


def render_labels(
    spec: SceneSpec, camera: CameraModel, seed: int, supersample: float = 1.0
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.float32]]:
    """Only the label pass of :func:`render` (same seed -> the same pixels as its label pass)."""
    mi = load_mitsuba()
    view = source_view(camera, supersample=supersample)
    scene, _names = build_scene(spec, camera, view)
    aux_integrator = mi.load_dict({"type": "aov", "aovs": "albedo:albedo,nn:sh_normal,id:shape_index,ng:geo_normal"})
    aux = np.asarray(mi.render(scene, spp=1, seed=seed + 1, integrator=aux_integrator), dtype=np.float32)
    aux = aux[..., -10:]
    return _labels(mi, scene, spec, view, aux[..., 6], aux[..., 7:10])


def render(
    spec: SceneSpec,
    camera: CameraModel,
    spp: int = 24,
    seed: int = 0,
    denoise: bool = True,
    labels: bool = True,
    supersample: float = 1.0,
) -> RenderResult:
    """Path-trace ``spec`` through ``camera`` (distortion applied by remapping) and denoise it."""
    import time

    t0 = time.perf_counter()
    mi = load_mitsuba()
    view = source_view(camera, supersample=supersample)
    scene, _names = build_scene(spec, camera, view)
    colour = np.maximum(np.asarray(mi.render(scene, spp=spp, seed=seed), dtype=np.float32)[..., :3], 0.0)
    aux_integrator = mi.load_dict({"type": "aov", "aovs": "albedo:albedo,nn:sh_normal,id:shape_index,ng:geo_normal"})
    aux = np.asarray(mi.render(scene, spp=1, seed=seed + 1, integrator=aux_integrator), dtype=np.float32)
    aux = aux[..., -10:]  # albedo (3), shading normal (3), shape index (1), geometric normal (3)
    albedo, sh_normal, shape_idx, geo_normal = aux[..., 0:3], aux[..., 3:6], aux[..., 6], aux[..., 7:10]
    if denoise:
        import pyoidn

        colour = np.asarray(
            pyoidn.denoise(
                np.ascontiguousarray(colour),
                np.ascontiguousarray(np.clip(albedo, 0, 1)),
                np.ascontiguousarray(np.clip(sh_normal, -1, 1)),
                hdr=True,
                quality="fast",
            ),
            dtype=np.float32,
        )
    linear = distort_image(colour, view).astype(np.float32)
    part_index = normal = None
    if labels:
        part_index, normal = _labels(mi, scene, spec, view, shape_idx, geo_normal)
    return RenderResult(linear, part_index, normal, view, time.perf_counter() - t0)
