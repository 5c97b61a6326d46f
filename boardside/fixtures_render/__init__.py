"""Recorded image fixtures: a physically based renderer of real table scenes (issue 4).

* :mod:`.scene` — a renderer-independent scene description and builders (CTRL pieces, the printed
  mat, tables, clutter, lighting, flat boards with cubes/tokens/robot);
* :mod:`.camera` — virtual webcams/phones (K, Brown-Conrady distortion, pose) and the distortion remap;
* :mod:`.mitsuba_backend` — the Mitsuba 3 path tracer + OIDN denoiser (needs the ``[render]`` extra);
* :mod:`.sensor` — exposure, white balance, noise, motion blur, JPEG;
* :mod:`.sets` — the recorded sets (seeded plans, resumable rendering, manifests);
* :mod:`.check` — manifest consistency checks and the contact sheet.

Every image these produce is a *rendered* photograph (simulated), named as such in the manifests.
"""

from boardside.fixtures_render.errors import FixtureSetError, RendererUnavailableError

__all__ = ["FixtureSetError", "RendererUnavailableError"]
