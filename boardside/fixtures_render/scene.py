"""A renderer-independent description of a table scene, and builders for CTRL and board games.

A :class:`SceneSpec` is a list of :class:`Part` (triangle meshes or cylinders with a
:class:`Material` and a ground-truth label), lights, and an environment.  The Mitsuba
backend (:mod:`boardside.fixtures_render.mitsuba_backend`) turns it into pixels; nothing
here imports the renderer, so scenes can be built and inspected without the ``[render]`` extra.
Units are millimetres in the battlefield frame (docs/coordinates.md).
"""

from __future__ import annotations

import colorsys
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from boardside.fixtures_render.board_pieces import EXTRA_KINDS, add_extra_piece
from boardside.fixtures_render.geometry import (
    DIRECTIONS,
    TriMesh,
    frame_from_direction,
    grid_sheet,
    rounded_box,
    socket_maps,
)

RGB = tuple[float, float, float]

#: Nominal plastic colours of the four CTRL players (linear RGB reflectance).
CTRL_COLOURS: dict[str, RGB] = {
    "blue": (0.025, 0.13, 0.55),
    "pink": (0.80, 0.16, 0.34),
    "yellow": (0.88, 0.62, 0.02),
    "green": (0.05, 0.42, 0.09),
}


@dataclass(frozen=True)
class Material:
    """A surface: ``kind`` is plastic | paper | diffuse | metal | emissive-free cloth, colour linear RGB.

    ``texture`` names an entry of :attr:`SceneSpec.textures` (linear RGB, multiplied by ``color``);
    ``normal_map`` names a tangent-space normal map there.
    """

    kind: str
    color: RGB = (0.5, 0.5, 0.5)
    roughness: float = 0.2
    texture: str | None = None
    normal_map: str | None = None


@dataclass
class Part:
    """One object of the scene with its ground-truth label (``block``, ``cube``, ``flag``, ``mat``...)."""

    name: str
    material: Material
    mesh: TriMesh | None = None
    cylinder: tuple[tuple[float, float, float], tuple[float, float, float], float] | None = None
    label: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Light:
    """A light: ``kind`` "sphere" (radius = size) or "rect" (square of side ``size`` facing down)."""

    kind: str
    position: tuple[float, float, float]
    size: float
    kelvin: float
    power: float  # relative radiant power; the exposure step normalises the image anyway

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "position_mm": [round(v, 1) for v in self.position],
            "size_mm": round(self.size, 1),
            "kelvin": round(self.kelvin),
            "power": round(self.power, 3),
        }


@dataclass(frozen=True)
class Environment:
    """The room around the table: a procedural, clipped environment map (walls, a window, a ceiling)."""

    kelvin: float
    strength: float
    window_strength: float
    yaw_deg: float
    seed: int

    def to_json(self) -> dict[str, Any]:
        return {
            "kelvin": round(self.kelvin),
            "strength": round(self.strength, 4),
            "window_strength": round(self.window_strength, 3),
            "yaw_deg": round(self.yaw_deg, 1),
        }


@dataclass
class SceneSpec:
    parts: list[Part] = field(default_factory=list)
    lights: list[Light] = field(default_factory=list)
    environment: Environment | None = None
    textures: dict[str, npt.NDArray[np.float32]] = field(default_factory=dict)
    info: dict[str, Any] = field(default_factory=dict)

    def add(self, part: Part) -> Part:
        if any(p.name == part.name for p in self.parts):
            raise ValueError(f"duplicate part name {part.name!r}")
        self.parts.append(part)
        return part


# ----------------------------------------------------------------------------- colour helpers


def kelvin_to_rgb(kelvin: float) -> RGB:
    """Linear RGB of a black body at ``kelvin`` normalised to luminance 1 (Tanner Helland's fit)."""
    t = kelvin / 100.0
    if t <= 66:
        r = 255.0
        g = 99.4708025861 * math.log(t) - 161.1195681661
        b = 0.0 if t <= 19 else 138.5177312231 * math.log(t - 10) - 305.0447927307
    else:
        r = 329.698727446 * (t - 60) ** -0.1332047592
        g = 288.1221695283 * (t - 60) ** -0.0755148492
        b = 255.0
    srgb = [min(max(c, 0.0), 255.0) / 255.0 for c in (r, g, b)]
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in srgb]
    lum = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    return (lin[0] / lum, lin[1] / lum, lin[2] / lum)


def jitter_colour(rgb: RGB, rng: np.random.Generator, hue: float = 0.015, sat: float = 0.08, val: float = 0.12) -> RGB:
    """Perturb a linear RGB colour in HSV (as different print runs and plastics differ)."""
    h, s, v = colorsys.rgb_to_hsv(*rgb)
    h = (h + rng.uniform(-hue, hue)) % 1.0
    s = float(np.clip(s * (1 + rng.uniform(-sat, sat)), 0, 1))
    v = float(np.clip(v * (1 + rng.uniform(-val, val)), 0, 1))
    r, g, b = colorsys.hsv_to_rgb(h, s, v)
    return (r, g, b)


# ----------------------------------------------------------------------------- CTRL pieces


@dataclass(frozen=True)
class PieceLook:
    """How this copy of the game looks (sampled per scene)."""

    colours: dict[str, RGB]
    plastic_roughness: float
    cube_roughness: float
    gap_mm: float
    bevel_mm: float

    @staticmethod
    def sample(rng: np.random.Generator) -> PieceLook:
        return PieceLook(
            colours={k: jitter_colour(v, rng) for k, v in CTRL_COLOURS.items()},
            plastic_roughness=float(rng.uniform(0.12, 0.32)),
            cube_roughness=float(rng.uniform(0.15, 0.35)),
            gap_mm=float(rng.uniform(0.25, 0.5)),
            bevel_mm=float(rng.uniform(0.9, 1.6)),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "colours_linear_rgb": {k: [round(c, 4) for c in v] for k, v in self.colours.items()},
            "plastic_roughness": round(self.plastic_roughness, 3),
        }


def _ensure_socket_textures(spec: SceneSpec) -> None:
    if "socket1_shade" not in spec.textures:
        shade, normal = socket_maps(1, px_per_cell=128)
        spec.textures["socket1_shade"] = np.repeat(shade, 3, axis=2)
        spec.textures["socket1_normal"] = normal
        shade3, normal3 = socket_maps(3, px_per_cell=96)
        spec.textures["socket3_shade"] = np.repeat(shade3, 3, axis=2)
        spec.textures["socket3_normal"] = normal3


def add_ctrl_pieces(
    spec: SceneSpec, state: dict[str, Any], look: PieceLook, block_mm: float, rng: np.random.Generator
) -> None:
    """Add the Central Cube, every block and every flag of a CTRL interchange state document."""
    s = block_mm
    _ensure_socket_textures(spec)
    cube_mat = Material("plastic", (0.018, 0.018, 0.02), look.cube_roughness, "socket3_shade", "socket3_normal")
    side = 3 * s - look.gap_mm
    cube = rounded_box((side, side, side), look.bevel_mm * 1.4).transformed(np.eye(3), (1.5 * s, 1.5 * s, 1.5 * s))
    spec.add(Part("cube", cube_mat, mesh=cube, label={"kind": "cube"}))
    block_box = rounded_box((s - look.gap_mm,) * 3, look.bevel_mm)
    mats = {
        c: Material("plastic", rgb, look.plastic_roughness, "socket1_shade", "socket1_normal")
        for c, rgb in look.colours.items()
    }
    for i, b in enumerate(state.get("blocks", [])):
        x, y, z = (int(v) for v in b["cell"])
        colour = str(b["color"])
        # a tiny per-block placement error, as real hands leave
        wobble = rng.normal(0, 0.08, 3)
        wobble[2] = 0.0
        centre = ((x + 0.5) * s + wobble[0], (y + 0.5) * s + wobble[1], (z + 0.5) * s)
        spec.add(
            Part(
                f"block_{i}",
                mats.get(colour, Material("plastic", (0.5, 0.5, 0.5))),
                mesh=block_box.transformed(np.eye(3), centre),
                label={"kind": "block", "cell": [x, y, z], "color": colour},
            )
        )
    pole_mat = Material("plastic", (0.75, 0.75, 0.72), 0.25)
    for f in state.get("flags", []):
        add_flag(spec, f, look, s, pole_mat, rng)


def add_flag(
    spec: SceneSpec,
    flag: dict[str, Any],
    look: PieceLook,
    s: float,
    pole_mat: Material,
    rng: np.random.Generator,
) -> None:
    """A flag: a thin pole plugged into the face of the block at ``cell - n`` and a banner near its tip."""
    colour = str(flag["color"])
    cell = np.asarray(flag["cell"], dtype=np.float64)
    n = np.asarray(DIRECTIONS[str(flag["points"])], dtype=np.float64)
    block_centre = (cell - n + 0.5) * s
    face = block_centre + n * s / 2
    p0 = face - n * 2.0
    p1 = face + n * 0.93 * s
    spec.add(
        Part(
            f"flag_{colour}_pole",
            pole_mat,
            cylinder=(tuple(p0), tuple(p1), 1.1),  # type: ignore[arg-type]
            label={"kind": "flag", "color": colour, "cell": [int(v) for v in cell], "points": flag["points"]},
        )
    )
    # banner direction: perpendicular to the pole
    candidates = [np.asarray(v, dtype=np.float64) for v in DIRECTIONS.values() if abs(np.dot(v, n)) < 0.5]
    if n[2] == 0:
        candidates = [c for c in candidates if c[2] >= 0] or candidates
    b = candidates[int(rng.integers(len(candidates)))]
    width, height, thick = 0.46 * s, 0.40 * s, 1.0
    box = rounded_box((thick, width, height), 0.3, bevel_steps=1)
    # local axes: x = thickness, y = along banner (b), z = along pole (n)
    t_axis = np.cross(b, n)
    rot = np.stack([t_axis, b, n], axis=1)
    centre = face + n * (0.93 * s - height / 2 - 0.5) + b * (width / 2 + 1.0)
    spec.add(
        Part(
            f"flag_{colour}_banner",
            Material("plastic", look.colours.get(colour, (0.5, 0.5, 0.5)), look.plastic_roughness),
            mesh=box.transformed(rot, centre),
            label={"kind": "flag", "color": colour},
        )
    )
    tip = Part(
        f"flag_{colour}_tip",
        pole_mat,
        mesh=rounded_box((2.6, 2.6, 2.6), 1.25, 2).transformed(np.eye(3), p1),
        label={"kind": "flag", "color": colour},
    )
    spec.add(tip)


# ----------------------------------------------------------------------------- mat, table, clutter


def add_mat(
    spec: SceneSpec,
    image_srgb: npt.NDArray[np.uint8],
    rect_mm: tuple[float, float, float, float],
    curl_mm: float,
    sheen: float,
) -> None:
    """The printed mat: ``image_srgb`` (h, w, 3 RGB uint8, row 0 = the +y edge) covering ``rect_mm``
    (xmin, ymin, xmax, ymax on the table), as paper with a faint sheen and curled edges."""
    xmin, ymin, xmax, ymax = rect_mm
    w, h = xmax - xmin, ymax - ymin
    srgb = image_srgb.astype(np.float32) / 255.0
    spec.textures["mat"] = np.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4).astype(np.float32)
    sheet = grid_sheet(w, h, 48, 48, curl_mm=curl_mm, flat_fraction=0.82)
    sheet = sheet.transformed(np.eye(3), ((xmin + xmax) / 2, (ymin + ymax) / 2, 0.0))
    spec.add(Part("mat", Material("paper", (1.0, 1.0, 1.0), sheen, "mat"), mesh=sheet, label={"kind": "mat"}))


TABLES = ("oak", "walnut", "white_laminate", "grey_felt", "green_cloth", "pine")


def _wood_texture(rng: np.random.Generator, base: RGB, dark: RGB, size: int = 512) -> npt.NDArray[np.float32]:
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32) / size
    import cv2

    noise = cv2.resize(rng.normal(0, 1, (24, 3)).astype(np.float32), (size, size), interpolation=cv2.INTER_CUBIC)
    rings = np.sin((yy * 18 + noise * 1.2 + 0.6 * np.sin(xx * 2 * np.pi)) * np.pi) * 0.5 + 0.5
    fine = cv2.resize(rng.normal(0, 1, (size, 6)).astype(np.float32), (size, size), interpolation=cv2.INTER_LINEAR)
    t = np.clip(0.6 * rings**4 + 0.12 * fine + 0.2, 0, 1)[..., None]
    out = np.asarray(base, np.float32) * (1 - t) + np.asarray(dark, np.float32) * t
    return np.asarray(out, dtype=np.float32)


def _cloth_texture(rng: np.random.Generator, base: RGB, size: int = 256) -> npt.NDArray[np.float32]:
    import cv2

    n = rng.normal(0, 1, (size, size)).astype(np.float32)
    n = (
        cv2.GaussianBlur(n, (0, 0), 0.7) * 0.06
        + cv2.resize(rng.normal(0, 1, (8, 8)).astype(np.float32), (size, size)) * 0.03
    )
    return (np.asarray(base, np.float32) * (1 + n[..., None])).clip(0, 1).astype(np.float32)


def add_table(
    spec: SceneSpec, kind: str, rng: np.random.Generator, size_mm: float = 1600.0, mat_thickness: float = 0.3
) -> None:
    if kind == "oak":
        tex, rough = _wood_texture(rng, (0.42, 0.25, 0.11), (0.25, 0.13, 0.05)), 0.3
    elif kind == "walnut":
        tex, rough = _wood_texture(rng, (0.14, 0.07, 0.035), (0.06, 0.03, 0.015)), 0.22
    elif kind == "pine":
        tex, rough = _wood_texture(rng, (0.6, 0.42, 0.22), (0.42, 0.25, 0.1)), 0.35
    elif kind == "white_laminate":
        tex, rough = _cloth_texture(rng, (0.72, 0.72, 0.7)), 0.15
    elif kind == "grey_felt":
        tex, rough = _cloth_texture(rng, (0.16, 0.16, 0.17)), 1.0
    elif kind == "green_cloth":
        tex, rough = _cloth_texture(rng, (0.04, 0.16, 0.06)), 1.0
    else:
        raise ValueError(f"unknown table kind {kind!r}; expected one of {TABLES}")
    spec.textures["table"] = tex
    sheet = grid_sheet(size_mm, size_mm, 1, 1)
    # tile the texture: UVs scaled so one texture tile is ~400 mm
    sheet.uvs[:] = sheet.uvs * (size_mm / 400.0)
    sheet = sheet.transformed(np.eye(3), (rng.uniform(-200, 200), rng.uniform(-200, 200), -mat_thickness))
    mat = Material("diffuse" if rough >= 1 else "plastic", (1, 1, 1), rough, "table")
    spec.add(Part("table", mat, mesh=sheet, label={"kind": "table", "material": kind}))


def add_clutter(
    spec: SceneSpec, rng: np.random.Generator, keep_out: tuple[float, float, float, float], count: int
) -> None:
    """Everyday objects on the table outside ``keep_out`` (the mat rectangle plus a margin)."""
    xmin, ymin, xmax, ymax = keep_out
    cx, cy = (xmin + xmax) / 2, (ymin + ymax) / 2
    radius = max(xmax - xmin, ymax - ymin) / 2 * math.sqrt(2)
    for i in range(count):
        ang = rng.uniform(0, 2 * math.pi)
        dist = radius + rng.uniform(40, 220)
        x, y = cx + dist * math.cos(ang), cy + dist * math.sin(ang)
        kind = rng.choice(["mug", "phone", "box", "pencil", "dice", "coaster"])
        colour = jitter_colour(tuple(rng.uniform(0.05, 0.8, 3)), rng)  # type: ignore[arg-type]
        name = f"clutter_{i}_{kind}"
        label = {"kind": "clutter", "object": str(kind)}
        yaw = rng.uniform(0, math.pi)
        rot = np.array([[math.cos(yaw), -math.sin(yaw), 0], [math.sin(yaw), math.cos(yaw), 0], [0, 0, 1]])
        if kind == "mug":
            h = rng.uniform(80, 105)
            spec.add(
                Part(
                    name,
                    Material("plastic", colour, 0.08),
                    cylinder=((x, y, 0), (x, y, h), 42.0),
                    label=label,
                )
            )
        elif kind == "phone":
            m = rounded_box((150, 72, 8), 3).transformed(rot, (x, y, 4))
            spec.add(Part(name, Material("plastic", (0.02, 0.02, 0.025), 0.05), mesh=m, label=label))
        elif kind == "box":
            w, d, h = rng.uniform(60, 180), rng.uniform(60, 140), rng.uniform(20, 70)
            m = rounded_box((w, d, h), 1.5).transformed(rot, (x, y, h / 2))
            spec.add(Part(name, Material("plastic", colour, 0.5), mesh=m, label=label))
        elif kind == "pencil":
            dv = np.array([math.cos(yaw), math.sin(yaw), 0.0]) * 85
            p0 = (x - dv[0], y - dv[1], 3.6)
            p1 = (x + dv[0], y + dv[1], 3.6)
            spec.add(Part(name, Material("plastic", (0.8, 0.5, 0.02), 0.3), cylinder=(p0, p1, 3.6), label=label))
        elif kind == "dice":
            m = rounded_box((16, 16, 16), 2.5).transformed(rot, (x, y, 8))
            spec.add(Part(name, Material("plastic", (0.8, 0.8, 0.78), 0.2), mesh=m, label=label))
        else:
            spec.add(Part(name, Material("diffuse", colour, 1.0), cylinder=((x, y, 0), (x, y, 4), 48.0), label=label))


# ----------------------------------------------------------------------------- lighting


@dataclass(frozen=True)
class Lighting:
    lights: tuple[Light, ...]
    environment: Environment
    kelvin: float
    dim: bool
    shadows: str  # "hard" | "soft" | "mixed"

    @staticmethod
    def sample(rng: np.random.Generator, centre: tuple[float, float]) -> Lighting:
        kelvin = float(rng.choice([2700, 3000, 3500, 4000, 5000, 5500, 6500]) + rng.uniform(-150, 150))
        n_lights = int(rng.choice([1, 1, 2, 2, 3]))
        dim = bool(rng.random() < 0.25)
        lights = []
        kinds = []
        for i in range(n_lights):
            az = rng.uniform(0, 2 * math.pi)
            horiz = rng.uniform(150, 900)
            height = rng.uniform(500, 1500)
            hard = rng.random() < 0.45
            kind = "sphere" if hard or rng.random() < 0.5 else "rect"
            size = rng.uniform(8, 25) if hard else rng.uniform(120, 450)
            kinds.append("hard" if hard else "soft")
            k = kelvin if i == 0 else float(np.clip(kelvin + rng.uniform(-900, 900), 2600, 6800))
            power = (1.0 if i == 0 else rng.uniform(0.25, 0.8)) * (height / 1000.0) ** 2
            lights.append(
                Light(
                    kind,
                    (centre[0] + horiz * math.cos(az), centre[1] + horiz * math.sin(az), height),
                    size,
                    k,
                    power,
                )
            )
        env = Environment(
            kelvin=float(np.clip(kelvin + rng.uniform(-500, 1500), 2600, 7500)),
            strength=float(rng.uniform(0.02, 0.08) * (0.3 if dim else 1.0)),
            window_strength=float(rng.uniform(0.0, 1.5) * (0.2 if dim else 1.0)),
            yaw_deg=float(rng.uniform(0, 360)),
            seed=int(rng.integers(1 << 30)),
        )
        shadows = "mixed" if len(set(kinds)) > 1 else kinds[0]
        return Lighting(tuple(lights), env, kelvin, dim, shadows)

    def to_json(self) -> dict[str, Any]:
        return {
            "kelvin": round(self.kelvin),
            "dim": self.dim,
            "shadows": self.shadows,
            "lights": [li.to_json() for li in self.lights],
            "environment": self.environment.to_json(),
        }


def apply_lighting(spec: SceneSpec, lighting: Lighting) -> None:
    spec.lights.extend(lighting.lights)
    spec.environment = lighting.environment


# ----------------------------------------------------------------------------- board games


@dataclass(frozen=True)
class BoardPiece:
    """A piece on a flat printed board: ``kind`` cube | token | robot; position in board mm."""

    kind: str
    x_mm: float
    y_mm: float
    color: RGB = (0.5, 0.5, 0.5)
    stack: int = 1  # cubes stacked at this spot
    heading_deg: float = 0.0
    size_mm: float = 20.0
    # added for the board-reading fixtures (board_pieces.py): base height, piece height, a texture
    # name in SceneSpec.textures, the index of the truth entry it belongs to, a robot tag's side
    z_mm: float = 0.0
    height_mm: float = 0.0
    texture: str | None = None
    truth: int = -1
    tag_mm: float = 30.0


def add_board(
    spec: SceneSpec,
    image_srgb: npt.NDArray[np.uint8],
    width_mm: float,
    height_mm: float,
    pieces: list[BoardPiece],
    rng: np.random.Generator,
    origin_mm: tuple[float, float] = (0.0, 0.0),
) -> None:
    """A flat printed board (its image, fiducials printed on it) with its origin at the board's
    south-west corner (board x east, y north, docs/coordinates.md "Flat boards"), and pieces on it.
    ``origin_mm`` is where the image's south-west corner lies (negative when the board frame's origin
    is the grid's corner inside a printed margin, as in :mod:`calibration.boards`)."""
    srgb = image_srgb.astype(np.float32) / 255.0
    spec.textures["board"] = np.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4).astype(np.float32)
    ox, oy = origin_mm
    sheet = grid_sheet(width_mm, height_mm, 8, 8).transformed(np.eye(3), (ox + width_mm / 2, oy + height_mm / 2, 0.0))
    spec.add(Part("board", Material("paper", (1, 1, 1), 0.3, "board"), mesh=sheet, label={"kind": "board"}))
    _ensure_socket_textures(spec)
    for i, p in enumerate(pieces):
        colour = jitter_colour(p.color, rng, val=0.06)
        label = {"kind": p.kind, "x_mm": p.x_mm, "y_mm": p.y_mm, "stack": p.stack}
        yaw = math.radians(p.heading_deg)
        rot = np.array([[math.cos(yaw), -math.sin(yaw), 0], [math.sin(yaw), math.cos(yaw), 0], [0, 0, 1]])
        if p.kind == "cube":
            box = rounded_box((p.size_mm - 0.4,) * 3, 1.2)
            if p.truth >= 0:
                label["truth"] = p.truth
            for k in range(p.stack):
                spec.add(
                    Part(
                        f"piece_{i}_{k}",
                        Material("plastic", colour, 0.2, "socket1_shade", "socket1_normal"),
                        mesh=box.transformed(rot, (p.x_mm, p.y_mm, p.z_mm + (k + 0.5) * p.size_mm)),
                        label=label,
                    )
                )
        elif p.kind == "token":
            spec.add(
                Part(
                    f"piece_{i}",
                    Material("plastic", colour, 0.25),
                    cylinder=((p.x_mm, p.y_mm, 0), (p.x_mm, p.y_mm, 4.0), p.size_mm / 2),
                    label=label,
                )
            )
        elif p.kind == "robot":
            body = rounded_box((p.size_mm, p.size_mm * 0.8, p.size_mm * 0.6), 4).transformed(
                rot, (p.x_mm, p.y_mm, p.size_mm * 0.3 + 3)
            )
            head = rounded_box((p.size_mm * 0.5, p.size_mm * 0.5, p.size_mm * 0.4), 3).transformed(
                rot, (p.x_mm, p.y_mm, p.size_mm * 0.8 + 3)
            )
            nose = rot @ np.array([p.size_mm * 0.3, 0.0, 0.0])
            eye = rounded_box((3, 10, 4), 1).transformed(
                rot, (p.x_mm + nose[0], p.y_mm + nose[1], p.size_mm * 0.85 + 3)
            )
            spec.add(Part(f"piece_{i}_body", Material("plastic", colour, 0.15), mesh=body, label=label))
            spec.add(Part(f"piece_{i}_head", Material("plastic", (0.8, 0.8, 0.8), 0.15), mesh=head, label=label))
            spec.add(Part(f"piece_{i}_eye", Material("plastic", (0.02, 0.02, 0.02), 0.05), mesh=eye, label=label))
            for side in (-1, 1):
                wheel_c = rot @ np.array([0.0, side * p.size_mm * 0.45, 0.0])
                axis = rot @ np.array([0.0, side * 3.0, 0.0])
                c0 = (p.x_mm + wheel_c[0], p.y_mm + wheel_c[1], 6.0)
                c1 = (c0[0] + axis[0], c0[1] + axis[1], 6.0)
                spec.add(
                    Part(
                        f"piece_{i}_wheel{side}",
                        Material("plastic", (0.03, 0.03, 0.03), 0.6),
                        cylinder=(c0, c1, 6.0),
                        label=label,
                    )
                )
        elif p.kind in EXTRA_KINDS:
            add_extra_piece(spec, i, p, colour)
        else:
            raise ValueError(
                f"unknown board piece kind {p.kind!r}; expected cube, token, robot or one of {', '.join(EXTRA_KINDS)}"
            )


__all__ = [
    "CTRL_COLOURS",
    "TABLES",
    "BoardPiece",
    "Environment",
    "Light",
    "Lighting",
    "Material",
    "Part",
    "PieceLook",
    "SceneSpec",
    "add_board",
    "add_clutter",
    "add_ctrl_pieces",
    "add_flag",
    "add_mat",
    "add_table",
    "apply_lighting",
    "frame_from_direction",
    "jitter_colour",
    "kelvin_to_rgb",
]
