#!/usr/bin/env python3
"""XXTEA ("Corrected Block TEA", Wheeler and Needham, 1998) as China Telecom's 天翼账号 open API applies it, written
from the algorithm's published description, not from OneTap's Swift (standard library only).

The block cipher works on n >= 2 little-endian 32-bit words with a 128-bit key of four words:
  rounds = 6 + 52 // n; each round adds DELTA = 0x9E3779B9 to sum, e = (sum >> 2) & 3, and for p = 0 .. n-1
  v[p] += MX with y = v[(p + 1) % n], z = v[p - 1] (the last word updated), where
  MX = (((z >> 5) ^ (y << 2)) + ((y >> 3) ^ (z << 4))) ^ ((sum ^ y) + (k[(p & 3) ^ e] ^ z)), all modulo 2**32.
Byte strings become words the way the published libraries (and the open API's Java samples) do it: the data's
bytes zero-padded to whole words, then one more word holding the data's length; the key's bytes zero-padded or cut
to 16. Ciphertext is written as upper-case hexadecimal for the open API.

Run as a script: reads lines "HEXKEY HEXDATA" on stdin and prints each ciphertext in lower-case hex (for tests).
"""
import sys

DELTA = 0x9E3779B9
MASK = 0xFFFFFFFF


def _words(data):
    padded = data + b"\0" * (-len(data) % 4)
    return [int.from_bytes(padded[i:i + 4], "little") for i in range(0, len(padded), 4)]


def _key(key):
    return _words((key + b"\0" * 16)[:16])


def _mx(s, y, z, p, e, k):
    return ((((z >> 5) ^ (y << 2)) + ((y >> 3) ^ (z << 4))) ^ ((s ^ y) + (k[(p & 3) ^ e] ^ z))) & MASK


def encrypt_words(v, k):
    n = len(v)
    s, z = 0, v[n - 1]
    for _ in range(6 + 52 // n):
        s = (s + DELTA) & MASK
        e = (s >> 2) & 3
        for p in range(n):
            y = v[(p + 1) % n]
            v[p] = (v[p] + _mx(s, y, z, p, e, k)) & MASK
            z = v[p]
    return v


def decrypt_words(v, k):
    n = len(v)
    rounds = 6 + 52 // n
    s, y = (rounds * DELTA) & MASK, v[0]
    for _ in range(rounds):
        e = (s >> 2) & 3
        for p in range(n - 1, -1, -1):
            z = v[p - 1] if p > 0 else v[n - 1]
            v[p] = (v[p] - _mx(s, y, z, p, e, k)) & MASK
            y = v[p]
        s = (s - DELTA) & MASK
    return v


def encrypt(data, key):
    """The data's words plus its length word, encrypted (an empty input is one zero word and its length, 0)."""
    v = _words(data) if data else [0]
    v.append(len(data))
    return b"".join(w.to_bytes(4, "little") for w in encrypt_words(v, _key(key)))


def decrypt(cipher, key):
    """The data, or None when the ciphertext is not whole words, too short, or its length word does not fit."""
    if len(cipher) % 4 or len(cipher) < 8:
        return None
    v = decrypt_words(_words(cipher), _key(key))
    length, room = v[-1], 4 * (len(v) - 1)
    if length > room or (length <= room - 4 and not (length == 0 and room == 4)):
        return None
    raw = b"".join(w.to_bytes(4, "little") for w in v[:-1])
    if any(raw[length:]):
        return None
    return raw[:length]


def encrypt_hex(text, secret):
    """The open API's form: UTF-8 text, the app secret's UTF-8 bytes as the key, upper-case hexadecimal out."""
    return encrypt(text.encode("utf-8"), secret.encode("utf-8")).hex().upper()


def decrypt_hex(hex_text, secret):
    try:
        cipher = bytes.fromhex(hex_text)
    except ValueError:
        return None
    plain = decrypt(cipher, secret.encode("utf-8"))
    if plain is None:
        return None
    try:
        return plain.decode("utf-8")
    except UnicodeDecodeError:
        return None


if __name__ == "__main__":
    for line in sys.stdin:
        key_hex, _, data_hex = line.rstrip("\n").partition(" ")
        print(encrypt(bytes.fromhex(data_hex), bytes.fromhex(key_hex)).hex(), flush=True)
