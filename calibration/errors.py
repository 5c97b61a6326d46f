"""Typed errors of the calibration package (all one-line, exit code 2 in the CLI)."""

from __future__ import annotations

from engine.errors import BoardsideInputError


class CalibrationError(BoardsideInputError):
    """Base of every calibration input error."""


class MatSpecError(CalibrationError):
    """A mat or target specification is malformed or inconsistent (bad paper, sizes, dictionary)."""


class TargetSpecError(CalibrationError):
    """A ``--chessboard`` / ``--charuco`` target specification cannot be parsed."""


class UnreadableImageError(CalibrationError):
    """An image file is missing or cannot be decoded."""


class NoBoardFoundError(CalibrationError):
    """No calibration target / mat was found in an image (or in any of the images)."""


class TooFewViewsError(CalibrationError):
    """Calibration needs more usable views than were given."""


class ImageSizeMismatchError(CalibrationError):
    """Images given to one calibration do not all have the same size."""


class CameraUnavailableError(CalibrationError):
    """A live camera (``--camera N``) cannot be opened or delivers no frames."""


class CalibrationFileError(CalibrationError):
    """A saved calibration / colour model file is not in the expected format."""


class PoseError(CalibrationError):
    """The pose of the mat cannot be determined from an image (too few points seen)."""
