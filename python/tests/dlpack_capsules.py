"""Reading DLPack capsules with ctypes, from the layout the DLPack standard fixes (dlpack.h 0.8 and
1.0), written here independently of python/src/dlpack.hpp so a layout error there shows."""
import ctypes


class Device(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", Device), ("ndim", ctypes.c_int32),
                ("dtype", DataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class Managed(ctypes.Structure):
    _fields_ = [("dl_tensor", Tensor), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]


class Version(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class ManagedVersioned(ctypes.Structure):
    _fields_ = [("version", Version), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p),
                ("flags", ctypes.c_uint64), ("dl_tensor", Tensor)]


def _api(name, restype, *argtypes):
    f = getattr(ctypes.pythonapi, name)
    f.restype, f.argtypes = restype, list(argtypes)
    return f


_is_valid = _api("PyCapsule_IsValid", ctypes.c_int, ctypes.py_object, ctypes.c_char_p)
_get_pointer = _api("PyCapsule_GetPointer", ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)


def read(capsule):
    """{version, flags, data, device, shape, strides, dtype, byte_offset} of an unconsumed capsule."""
    if _is_valid(capsule, b"dltensor_versioned"):
        m = ManagedVersioned.from_address(_get_pointer(capsule, b"dltensor_versioned"))
        version, flags, t = (m.version.major, m.version.minor), m.flags, m.dl_tensor
    elif _is_valid(capsule, b"dltensor"):
        m = Managed.from_address(_get_pointer(capsule, b"dltensor"))
        version, flags, t = None, 0, m.dl_tensor
    else:
        raise ValueError("not an unconsumed DLPack capsule")
    return {
        "version": version, "flags": flags, "data": t.data, "byte_offset": t.byte_offset,
        "device": (t.device.device_type, t.device.device_id),
        "dtype": (t.dtype.code, t.dtype.bits, t.dtype.lanes),
        "shape": tuple(t.shape[d] for d in range(t.ndim)),
        "strides": None if not t.strides else tuple(t.strides[d] for d in range(t.ndim)),
    }
