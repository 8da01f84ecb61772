// OpenSSL's libcrypto (https://www.openssl.org/docs/man3.0/man3/EVP_EncryptInit.html), which libpq already
// links: AES-256-GCM through the EVP interface and the CSPRNG (RAND_bytes); for OneTapGateways, MD5, SHA-1,
// HMAC, AES-CBC/ECB and RSA (keys read by OSSL_DECODER). Debian and Ubuntu:
// apt install libssl-dev. The include path comes from pkg-config (libcrypto.pc).
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/crypto.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/decoder.h>
#include <openssl/err.h>
