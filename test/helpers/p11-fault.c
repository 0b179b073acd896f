/*
 * A fault injector around the real SoftHSM2 (issue 25 item 3): a PKCS#11 module that loads libsofthsm2.so, hands out
 * its function list with C_Sign and C_GenerateKeyPair wrapped, and before each call reads the control file named by
 * SVC_P11_FAULT: a line `delay_ms=N` makes the call sleep N ms first (a slow token); anything else, or no file, passes
 * straight through. Not a mock: every call is SoftHSM2's. Built at test time:
 *   cc -shared -fPIC -o p11-fault.so test/helpers/p11-fault.c -I node_modules/pkcs11js/includes/pkcs11 -ldl
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pkcs11.h"

static CK_FUNCTION_LIST_PTR real;
static CK_FUNCTION_LIST wrapped;

/* The delay the control file asks for (0: none). */
static long delay_ms(void) {
  const char *file = getenv("SVC_P11_FAULT");
  if (!file) return 0;
  FILE *f = fopen(file, "r");
  if (!f) return 0;
  long ms = 0;
  if (fscanf(f, "delay_ms=%ld", &ms) != 1) ms = 0;
  fclose(f);
  return ms;
}

static void maybe_sleep(void) {
  long ms = delay_ms();
  if (ms <= 0) return;
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

static CK_RV fault_Sign(CK_SESSION_HANDLE s, CK_BYTE_PTR d, CK_ULONG dl, CK_BYTE_PTR sig, CK_ULONG_PTR sl) {
  maybe_sleep();
  return real->C_Sign(s, d, dl, sig, sl);
}

static CK_RV fault_GenerateKeyPair(CK_SESSION_HANDLE s, CK_MECHANISM_PTR m, CK_ATTRIBUTE_PTR pub, CK_ULONG pn, CK_ATTRIBUTE_PTR priv, CK_ULONG vn, CK_OBJECT_HANDLE_PTR ph, CK_OBJECT_HANDLE_PTR vh) {
  maybe_sleep();
  return real->C_GenerateKeyPair(s, m, pub, pn, priv, vn, ph, vh);
}

CK_RV C_GetFunctionList(CK_FUNCTION_LIST_PTR_PTR out) {
  if (!real) {
    const char *lib = getenv("SVC_P11_REAL");
    void *h = dlopen(lib ? lib : "/usr/lib/softhsm/libsofthsm2.so", RTLD_NOW | RTLD_LOCAL);
    if (!h) return CKR_GENERAL_ERROR;
    CK_C_GetFunctionList get = (CK_C_GetFunctionList)dlsym(h, "C_GetFunctionList");
    if (!get || get(&real) != CKR_OK) return CKR_GENERAL_ERROR;
    wrapped = *real;
    wrapped.C_GetFunctionList = C_GetFunctionList;
    wrapped.C_Sign = fault_Sign;
    wrapped.C_GenerateKeyPair = fault_GenerateKeyPair;
  }
  *out = &wrapped;
  return CKR_OK;
}
