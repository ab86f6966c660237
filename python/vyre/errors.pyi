class VyreError(Exception):
    code: int
    name: str
    message: str
    fix: str
    def __init__(self, code: int, message: str) -> None: ...

def error_class(code: int) -> type[VyreError]: ...

# One subclass of VyreError per stable code (InvalidArgumentError, NoDeviceError, ...).
def __getattr__(name: str) -> type[VyreError]: ...
