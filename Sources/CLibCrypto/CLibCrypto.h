// OpenSSL's libcrypto (https://www.openssl.org/docs/man3.0/man3/EVP_EncryptInit.html), which libpq already
// links: AES-256-GCM through the EVP interface and the CSPRNG (RAND_bytes). Debian and Ubuntu:
// apt install libssl-dev. The include path comes from pkg-config (libcrypto.pc).
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/crypto.h>
