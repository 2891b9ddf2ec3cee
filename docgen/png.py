"""A small PNG reader and writer (8-bit, non-interlaced, the kind Chromium's screenshots are), so taking and
checking the docs site's screenshots needs no imaging package.

Screenshots are re-encoded with :func:`write_png` (the same pixels, Up-filtered rows): decoding Chromium's
adaptive Paeth and Average filters takes seconds of pure Python per image; Up-filtered rows decode in numpy."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import numpy as np

SIGNATURE = b"\x89PNG\r\n\x1a\n"
_CHANNELS = {0: 1, 2: 3, 4: 2, 6: 4}  # colour type -> channels: grey, RGB, grey+alpha, RGBA


def read_png(path: Path) -> np.ndarray:
    """The image as a ``(height, width, channels)`` uint8 array."""
    data = path.read_bytes()
    if data[:8] != SIGNATURE:
        raise ValueError(f"{path} is not a PNG")
    pos, chunks, header = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            chunks.append(body)
        elif kind == b"IEND":
            break
    if header is None:
        raise ValueError(f"{path} has no IHDR chunk")
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in _CHANNELS or interlace:
        raise ValueError(f"{path}: only 8-bit non-interlaced PNGs are read (depth {depth}, colour type {colour})")
    bpp = _CHANNELS[colour]
    stride = width * bpp
    rows = np.frombuffer(zlib.decompress(b"".join(chunks)), np.uint8).reshape(height, stride + 1)
    out = np.zeros((height, stride), np.uint8)
    prev = np.zeros(stride, np.int64)
    for y in range(height):
        line = rows[y, 1:].astype(np.int64)
        cur = _unfilter(int(rows[y, 0]), line, prev, bpp)
        out[y] = cur
        prev = cur
    return out.reshape(height, width, bpp)


def _unfilter(kind: int, line: np.ndarray, prev: np.ndarray, bpp: int) -> np.ndarray:
    if kind == 0:
        return line
    if kind == 1:  # Sub: a running sum along the row, per channel
        return line.reshape(-1, bpp).cumsum(axis=0).reshape(-1) % 256
    if kind == 2:  # Up
        return (line + prev) % 256
    if kind not in (3, 4):
        raise ValueError(f"unknown PNG filter {kind}")
    raw, up = line.tolist(), prev.tolist()
    cur = [0] * len(raw)
    for i, x in enumerate(raw):
        left = cur[i - bpp] if i >= bpp else 0
        if kind == 3:  # Average
            cur[i] = (x + (left + up[i]) // 2) & 255
            continue
        upleft = up[i - bpp] if i >= bpp else 0
        p = left + up[i] - upleft
        pa, pb, pc = abs(p - left), abs(p - up[i]), abs(p - upleft)
        pred = left if pa <= pb and pa <= pc else up[i] if pb <= pc else upleft
        cur[i] = (x + pred) & 255
    return np.array(cur, np.int64)


def write_png(path: Path, image: np.ndarray) -> Path:
    """``image`` (``(height, width, 3 or 4)`` uint8) as an 8-bit RGB(A) PNG, every row Up-filtered: lossless,
    about as small as an adaptive encoder's for screenshots, and quick for :func:`read_png` to undo."""
    height, width, channels = image.shape
    flat = image.reshape(height, width * channels).astype(np.int16)
    up = np.diff(flat, axis=0, prepend=np.zeros((1, flat.shape[1]), np.int16)) % 256
    raw = np.concatenate([np.full((height, 1), 2, np.uint8), up.astype(np.uint8)], axis=1).tobytes()

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    header = struct.pack(">IIBBBBB", width, height, 8, {3: 2, 4: 6}[channels], 0, 0, 0)
    path.write_bytes(SIGNATURE + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))
    return path
