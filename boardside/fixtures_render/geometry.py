"""Triangle meshes and textures for the rendered fixtures (numpy only; no renderer needed).

Everything here is in millimetres in the battlefield frame of docs/coordinates.md.  The
meshes are plain arrays so the scene description stays independent of the path tracer.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from engine.ctrl.geometry import DIRECTIONS as ENGINE_DIRECTIONS

FloatArray = npt.NDArray[np.float32]
IntArray = npt.NDArray[np.uint32]

#: Axis directions by name (docs/coordinates.md): the engine's table, re-exported.
DIRECTIONS = ENGINE_DIRECTIONS


@dataclass
class TriMesh:
    """An indexed triangle mesh with per-vertex normals and texture coordinates."""

    vertices: FloatArray  # (n, 3)
    faces: IntArray  # (m, 3)
    normals: FloatArray  # (n, 3)
    uvs: FloatArray  # (n, 2)

    def transformed(self, rotation: npt.NDArray[np.float64], translation: npt.ArrayLike) -> TriMesh:
        r = np.asarray(rotation, dtype=np.float64)
        t = np.asarray(translation, dtype=np.float64)
        v = (self.vertices.astype(np.float64) @ r.T + t).astype(np.float32)
        n = (self.normals.astype(np.float64) @ r.T).astype(np.float32)
        return TriMesh(v, self.faces, n, self.uvs)

    @staticmethod
    def concat(meshes: list[TriMesh]) -> TriMesh:
        offset = 0
        faces = []
        for m in meshes:
            faces.append(m.faces + offset)
            offset += len(m.vertices)
        return TriMesh(
            np.concatenate([m.vertices for m in meshes]).astype(np.float32),
            np.concatenate(faces).astype(np.uint32),
            np.concatenate([m.normals for m in meshes]).astype(np.float32),
            np.concatenate([m.uvs for m in meshes]).astype(np.float32),
        )


def _axis_samples(half: float, radius: float, bevel_steps: int, inner_steps: int) -> npt.NDArray[np.float64]:
    """Coordinates along one box edge: dense on the bevels, sparse in between."""
    angles = np.linspace(0.0, np.pi / 2, bevel_steps + 1)
    low = -half + radius - radius * np.cos(angles)  # -half .. -half+radius
    inner = np.linspace(-half + radius, half - radius, inner_steps + 2)[1:-1]
    high = -low[::-1]
    return np.concatenate([low, inner, high])


def rounded_box(size: tuple[float, float, float], radius: float, bevel_steps: int = 3) -> TriMesh:
    """A box centred at the origin with rounded (bevelled) edges and corners.

    Each of the six faces gets its own vertices and UVs in [0, 1]^2 (u along the face's first
    in-plane axis, v along the second), so one texture shows the same pattern on every face.
    """
    half = np.asarray(size, dtype=np.float64) / 2
    radius = float(min(radius, *(half * 0.999)))
    meshes: list[TriMesh] = []
    # (normal axis, sign, in-plane axis u, in-plane axis v) with u x v == sign * normal
    specs = [
        (0, 1, 1, 2),
        (0, -1, 2, 1),
        (1, 1, 2, 0),
        (1, -1, 0, 2),
        (2, 1, 0, 1),
        (2, -1, 1, 0),
    ]
    for axis, sign, ua, va in specs:
        us = _axis_samples(half[ua], radius, bevel_steps, 2)
        vs = _axis_samples(half[va], radius, bevel_steps, 2)
        gu, gv = np.meshgrid(us, vs, indexing="ij")
        p = np.zeros((*gu.shape, 3))
        p[..., axis] = sign * half[axis]
        p[..., ua] = gu
        p[..., va] = gv
        core = np.clip(p, -(half - radius), half - radius)
        d = p - core
        length = np.linalg.norm(d, axis=-1, keepdims=True)
        normal = np.where(length > 1e-9, d / np.maximum(length, 1e-12), 0.0)
        pos = core + radius * normal
        nu, nv = gu.shape
        uv = np.stack([(gu + half[ua]) / (2 * half[ua]), (gv + half[va]) / (2 * half[va])], axis=-1)
        idx = np.arange(nu * nv).reshape(nu, nv)
        a = idx[:-1, :-1].ravel()
        b = idx[1:, :-1].ravel()
        c = idx[1:, 1:].ravel()
        d2 = idx[:-1, 1:].ravel()
        tris = np.concatenate([np.stack([a, b, c], 1), np.stack([a, c, d2], 1)])
        meshes.append(
            TriMesh(
                pos.reshape(-1, 3).astype(np.float32),
                tris.astype(np.uint32),
                normal.reshape(-1, 3).astype(np.float32),
                uv.reshape(-1, 2).astype(np.float32),
            )
        )
    return TriMesh.concat(meshes)


def grid_sheet(
    width: float, height: float, nx: int, ny: int, curl_mm: float = 0.0, flat_fraction: float = 0.8
) -> TriMesh:
    """A flat rectangle in the z = 0 plane centred at the origin, UV (0,0) at its (-x, +y) corner.

    ``curl_mm`` lifts the outer ``1 - flat_fraction`` of the sheet quadratically (a printed mat
    that has been rolled); the centre stays flat, so pieces standing on it rest at z = 0.
    UV v runs downwards so that image row 0 is the sheet's +y edge (an image seen from above).
    """
    xs = np.linspace(-width / 2, width / 2, nx + 1)
    ys = np.linspace(-height / 2, height / 2, ny + 1)
    gx, gy = np.meshgrid(xs, ys, indexing="ij")

    def lift(g: npt.NDArray[np.float64], half: float) -> npt.NDArray[np.float64]:
        start = half * flat_fraction
        e = np.clip((np.abs(g) - start) / max(half - start, 1e-9), 0.0, 1.0)
        return np.asarray(e**2)

    z = curl_mm * np.maximum(lift(gx, width / 2), lift(gy, height / 2))
    pos = np.stack([gx, gy, z], axis=-1).reshape(-1, 3)
    # normals from the height field gradient
    dzdx = np.gradient(z, xs, axis=0)
    dzdy = np.gradient(z, ys, axis=1)
    n = np.stack([-dzdx, -dzdy, np.ones_like(z)], axis=-1)
    n /= np.linalg.norm(n, axis=-1, keepdims=True)
    uv = np.stack([(gx + width / 2) / width, 1.0 - (gy + height / 2) / height], axis=-1).reshape(-1, 2)
    idx = np.arange((nx + 1) * (ny + 1)).reshape(nx + 1, ny + 1)
    a = idx[:-1, :-1].ravel()
    b = idx[1:, :-1].ravel()
    c = idx[1:, 1:].ravel()
    d = idx[:-1, 1:].ravel()
    tris = np.concatenate([np.stack([a, b, c], 1), np.stack([a, c, d], 1)])
    return TriMesh(
        pos.astype(np.float32),
        tris.astype(np.uint32),
        n.reshape(-1, 3).astype(np.float32),
        uv.astype(np.float32),
    )


def frame_from_direction(direction: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """A rotation matrix whose third column is ``direction`` (normalised)."""
    z = np.asarray(direction, dtype=np.float64)
    z = z / np.linalg.norm(z)
    helper = np.array([0.0, 0.0, 1.0]) if abs(z[2]) < 0.9 else np.array([1.0, 0.0, 0.0])
    x = np.cross(helper, z)
    x /= np.linalg.norm(x)
    y = np.cross(z, x)
    return np.stack([x, y, z], axis=1)


def socket_maps(
    cells: int, px_per_cell: int = 96, socket_radius: float = 0.2, depth_shade: float = 0.18
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """Albedo multiplier and tangent-space normal map of a face with ``cells x cells`` sockets.

    The socket is a round hole: its inside is shaded dark (little light gets in), its rim is
    chamfered (the normal map tilts the surface toward the hole so highlights catch it).
    Returns ``(shade, normal)``: shade is (h, w, 1) in [0, 1]; normal is (h, w, 3) in [0, 1].
    """
    size = cells * px_per_cell
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float64)
    cx = (np.floor(xx / px_per_cell) + 0.5) * px_per_cell
    cy = (np.floor(yy / px_per_cell) + 0.5) * px_per_cell
    r = np.hypot(xx + 0.5 - cx, yy + 0.5 - cy) / px_per_cell
    r_hole = socket_radius
    r_rim = socket_radius * 1.35
    # height: 0 on the face, falls along the chamfer, deep in the hole
    h = np.where(r >= r_rim, 0.0, np.where(r >= r_hole, -(r_rim - r) / (r_rim - r_hole), -1.0))
    h = cv2.GaussianBlur(h.astype(np.float32), (0, 0), px_per_cell * 0.012 + 0.6)
    gy, gx = np.gradient(h.astype(np.float64))
    strength = px_per_cell * 0.06
    n = np.stack([-gx * strength, gy * strength, np.ones_like(gx)], axis=-1)
    n /= np.linalg.norm(n, axis=-1, keepdims=True)
    normal = (n * 0.5 + 0.5).astype(np.float32)
    shade = np.where(r < r_hole, depth_shade + (1 - depth_shade) * 0.35 * (r / r_hole) ** 4, 1.0)
    shade = np.where((r >= r_hole) & (r < r_rim), 0.82 + 0.18 * (r - r_hole) / (r_rim - r_hole), shade)
    shade = cv2.GaussianBlur(shade.astype(np.float32), (0, 0), 0.8)
    return shade[..., None].astype(np.float32), normal
