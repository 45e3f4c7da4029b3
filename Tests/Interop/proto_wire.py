"""Protobuf's wire format by hand, for the fakes and benchmark clients that read or write a field or two of a message
without compiled classes."""


def varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def field(number: int, value: bytes) -> bytes:
    """A length-delimited field (a string, bytes or a nested message)."""
    return varint(number << 3 | 2) + varint(len(value)) + value


def read_varint(data: bytes, offset: int) -> tuple[int, int]:
    """The varint at `offset` and the offset after it."""
    value = shift = 0
    while True:
        byte = data[offset]
        offset += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, offset


def fields(message: bytes):
    """The top-level (field number, value) pairs of a message: varints as ints, everything else as bytes."""
    offset = 0
    while offset < len(message):
        key, offset = read_varint(message, offset)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, offset = read_varint(message, offset)
        elif wire == 2:
            length, offset = read_varint(message, offset)
            value, offset = message[offset:offset + length], offset + length
        elif wire in (1, 5):
            size = 8 if wire == 1 else 4
            value, offset = message[offset:offset + size], offset + size
        else:
            raise ValueError(f"bad wire type {wire}")
        yield number, value
