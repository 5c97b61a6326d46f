"""Robot transports (serial, BLE, simulated), the robot protocol and drivers."""
