#ifndef KIT_SCRIPT_H
#define KIT_SCRIPT_H
#include <stdint.h>
typedef int32_t (*script_call_fn)(int which, int32_t arg);
int script_run(const uint8_t *code, int len, script_call_fn call);
#endif
