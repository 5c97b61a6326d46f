"""Typed errors of the hardware layer (all one-line, CLI exit 2 unless stated)."""

from __future__ import annotations

from engine.errors import BoardsideError, BoardsideInputError


class HardwareError(BoardsideError):
    """Base of robot/link failures reported to the user in one line."""


class InvalidRobotURLError(HardwareError, BoardsideInputError):
    """A robot URL that does not match any transport's expected form."""


class LinkLostError(HardwareError):
    """The link to the robot dropped (cable pulled, BLE disconnect, dead port)."""


class RobotUnreachableError(HardwareError):
    """Could not (re)connect to the robot within the allowed time."""

    exit_code = 1


class RobotProtocolError(HardwareError):
    """The robot answered something our protocol does not allow."""


class RobotRejectedError(HardwareError):
    """The robot refused a command (err reply that retrying cannot fix)."""


class RobotBusyError(HardwareError):
    """The robot is in the middle of another run (held or queued moves)."""


class RobotInterruptedError(HardwareError):
    """A move was cut short by a robot reset or a cancel: its physical outcome is unknown."""

    exit_code = 1

    def __init__(self, message: str, seq: int) -> None:
        super().__init__(message)
        self.seq = seq


class RobotHoldFailedError(HardwareError):
    """The user stopped a run (Ctrl-C) but the hold could not be sent: the robot may still be moving."""

    exit_code = 1


class PoseMismatchError(HardwareError):
    """The robot reported a pose different from the one the program expects."""

    exit_code = 1


class ExecutionLogError(HardwareError, BoardsideInputError):
    """The execution log does not match the program being resumed."""
