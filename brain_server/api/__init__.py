"""The RPCs behind both transports: the service core, request checks, conversions, saves, access."""
