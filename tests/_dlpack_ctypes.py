"""The DLPack structures in ctypes, written from the DLPack specification, so
tests can read what memview exports and hand it tensors of their own (with a
byte_offset, a read-only flag, a dtype it must refuse, a deleter that counts)."""
import ctypes

CAPSULE_GET = ctypes.pythonapi.PyCapsule_GetPointer
CAPSULE_GET.restype = ctypes.c_void_p
CAPSULE_GET.argtypes = [ctypes.py_object, ctypes.c_char_p]
CAPSULE_NEW = ctypes.pythonapi.PyCapsule_New
CAPSULE_NEW.restype = ctypes.py_object
CAPSULE_NEW.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
CAPSULE_NAME = ctypes.pythonapi.PyCapsule_GetName
CAPSULE_NAME.restype = ctypes.c_char_p
CAPSULE_NAME.argtypes = [ctypes.py_object]

READ_ONLY, IS_COPIED = 1, 2
CPU, CUDA, CUDA_HOST, CUDA_MANAGED = 1, 2, 3, 13
INT, UINT, FLOAT, BFLOAT, COMPLEX, BOOL = 0, 1, 2, 4, 5, 6


class Device(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", Device), ("ndim", ctypes.c_int32),
                ("dtype", DataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class Version(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class Managed(ctypes.Structure):
    pass


class Versioned(ctypes.Structure):
    pass


LEGACY_DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(Managed))
DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(Versioned))
Managed._fields_ = [("dl_tensor", Tensor), ("manager_ctx", ctypes.c_void_p), ("deleter", LEGACY_DELETER)]
Versioned._fields_ = [("version", Version), ("manager_ctx", ctypes.c_void_p), ("deleter", DELETER),
                      ("flags", ctypes.c_uint64), ("dl_tensor", Tensor)]


class ExchangeHeader(ctypes.Structure):
    _fields_ = [("version", Version), ("prev_api", ctypes.c_void_p)]


SET_ERROR = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p)


class ExchangeAPI(ctypes.Structure):
    _fields_ = [("header", ExchangeHeader),
                ("managed_tensor_allocator", ctypes.PYFUNCTYPE(
                    ctypes.c_int, ctypes.POINTER(Tensor), ctypes.POINTER(ctypes.POINTER(Versioned)),
                    ctypes.c_void_p, SET_ERROR)),
                ("managed_tensor_from_py_object_no_sync", ctypes.PYFUNCTYPE(
                    ctypes.c_int, ctypes.py_object, ctypes.POINTER(ctypes.POINTER(Versioned)))),
                ("managed_tensor_to_py_object_no_sync", ctypes.PYFUNCTYPE(
                    ctypes.c_int, ctypes.POINTER(Versioned), ctypes.POINTER(ctypes.py_object))),
                ("dltensor_from_py_object_no_sync", ctypes.PYFUNCTYPE(
                    ctypes.c_int, ctypes.py_object, ctypes.POINTER(Tensor))),
                ("current_work_stream", ctypes.PYFUNCTYPE(
                    ctypes.c_int, ctypes.c_int32, ctypes.c_int32, ctypes.POINTER(ctypes.c_void_p)))]


def versioned(capsule):
    """The DLManagedTensorVersioned inside an unconsumed capsule."""
    return Versioned.from_address(CAPSULE_GET(capsule, b"dltensor_versioned"))


def legacy(capsule):
    return Managed.from_address(CAPSULE_GET(capsule, b"dltensor"))


def shape_strides(t: Tensor):
    n = t.ndim
    shape = tuple(t.shape[i] for i in range(n)) if n else ()
    strides = tuple(t.strides[i] for i in range(n)) if n and t.strides else None
    return shape, strides


class Producer:
    """A hand-made DLPack producer: a tensor over memory the test owns, in a
    capsule without a destructor, whose deleter counts its calls."""

    def __init__(self, buf, shape, strides, code, bits, byte_offset=0, flags=0, versioned_=True,
                 major=1, device=(CPU, 0)):
        self.deleted = 0
        self.buf = buf
        n = len(shape)
        self._shape = (ctypes.c_int64 * max(n, 1))(*shape)
        self._strides = (ctypes.c_int64 * max(n, 1))(*strides) if strides is not None else None
        addr = ctypes.addressof(ctypes.c_char.from_buffer(buf)) if buf is not None else 0
        t = Tensor(ctypes.c_void_p(addr), Device(*device), n, DataType(code, bits, 1),
                   ctypes.cast(self._shape, ctypes.POINTER(ctypes.c_int64)),
                   ctypes.cast(self._strides, ctypes.POINTER(ctypes.c_int64)) if self._strides else None,
                   byte_offset)
        if versioned_:
            self._deleter = DELETER(self._delete)
            self.tensor = Versioned(Version(major, 0), None, self._deleter, flags, t)
            name = b"dltensor_versioned"
        else:
            self._deleter = LEGACY_DELETER(self._delete)
            self.tensor = Managed(t, None, self._deleter)
            name = b"dltensor"
        self.capsule = CAPSULE_NEW(ctypes.addressof(self.tensor), name, None)

    def _delete(self, _):
        self.deleted += 1

    def __dlpack__(self, **kwargs):
        return self.capsule
