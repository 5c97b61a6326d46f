"""Robot transports (serial, BLE, simulated), the robot protocol and drivers.

* :mod:`hardware.transport` -- byte transports chosen by URL (``serial://``, ``ble://``, ``sim://``, ``spy://``)
* :mod:`hardware.link` -- our line protocol's host side (docs/protocol.md), typed events
* :mod:`hardware.root` -- the iRobot Root BLE dialect and a simulated Root
* :mod:`hardware.executor` -- exactly-once execution with the SQLite (WAL) execution log
* :mod:`hardware.firmware` -- the MicroPython reference firmware and its protocol core
* :mod:`hardware.sim`, :mod:`hardware.simfw`, :mod:`hardware.blesim` -- *simulated* robots
  (in process, behind a pseudo-terminal, behind bumble's BLE radio)
* :mod:`hardware.faults` -- fault injection for tests and benchmarks
"""
