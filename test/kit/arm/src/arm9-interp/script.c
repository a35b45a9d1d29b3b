/* The script engine of the ARM9 interpreter kit program (Thumb, -O2): a stack-based bytecode VM for
 * the monitor's start-up scripts, one function with a switch of 64 opcodes. It is large enough that
 * GCC cannot reach its loop head with Thumb-1 branches from the far cases and uses BL as a long jump
 * inside the function (the LR it clobbers is saved for that reason). */
#include "script.h"
#include <stdio.h>
#include <string.h>

#define STACK 32
struct script_state {
  int32_t stack[STACK];
  int sp;
  int32_t vars[16];
  char text[64];
  unsigned text_len;
  unsigned steps;
};

static struct script_state st;

static int32_t pop(void) { return st.sp > 0 ? st.stack[--st.sp] : 0; }
static void push(int32_t v) {
  if (st.sp < STACK) st.stack[st.sp++] = v;
}

int script_run(const uint8_t *code, int len, script_call_fn call) {
  int pc = 0;
  int32_t a, b;
  st.sp = 0;
  st.steps = 0;
  while (pc < len && st.steps < 100000) {
    uint8_t op = code[pc++];
    st.steps++;
    switch (op & 63) {
      case 0: return pop();
      case 1: push((int8_t)code[pc++]); break;
      case 2: push((int16_t)(code[pc] | code[pc + 1] << 8)); pc += 2; break;
      case 3: push(st.vars[code[pc++] & 15]); break;
      case 4: st.vars[code[pc++] & 15] = pop(); break;
      case 5: b = pop(); a = pop(); push(a + b); break;
      case 6: b = pop(); a = pop(); push(a - b); break;
      case 7: b = pop(); a = pop(); push(a * b); break;
      case 8: b = pop(); a = pop(); push(b ? a / b : 0); break;
      case 9: b = pop(); a = pop(); push(b ? a % b : 0); break;
      case 10: b = pop(); a = pop(); push(a & b); break;
      case 11: b = pop(); a = pop(); push(a | b); break;
      case 12: b = pop(); a = pop(); push(a ^ b); break;
      case 13: b = pop(); a = pop(); push(a << (b & 31)); break;
      case 14: b = pop(); a = pop(); push(a >> (b & 31)); break;
      case 15: push(-pop()); break;
      case 16: push(~pop()); break;
      case 17: push(!pop()); break;
      case 18: b = pop(); a = pop(); push(a == b); break;
      case 19: b = pop(); a = pop(); push(a != b); break;
      case 20: b = pop(); a = pop(); push(a < b); break;
      case 21: b = pop(); a = pop(); push(a <= b); break;
      case 22: b = pop(); a = pop(); push(a > b); break;
      case 23: b = pop(); a = pop(); push(a >= b); break;
      case 24: a = (int8_t)code[pc++]; pc += a; break;
      case 25: a = (int8_t)code[pc++]; if (pop()) pc += a; break;
      case 26: a = (int8_t)code[pc++]; if (!pop()) pc += a; break;
      case 27: a = pop(); push(a); push(a); break;
      case 28: pop(); break;
      case 29: b = pop(); a = pop(); push(b); push(a); break;
      case 30: a = pop(); b = pop(); push(b); push(a); push(b); break;
      case 31: push(st.sp); break;
      case 32: a = pop(); push(call ? call((int)a, st.sp > 0 ? st.stack[st.sp - 1] : 0) : -1); break;
      case 33: printf("%ld\n", (long)pop()); break;
      case 34: st.text_len = 0; memset(st.text, 0, sizeof st.text); break;
      case 35:
        a = pop();
        if (st.text_len + 1 < sizeof st.text) st.text[st.text_len++] = (char)a;
        break;
      case 36: puts(st.text); break;
      case 37: push((int32_t)strlen(st.text)); break;
      case 38:
        a = pop();
        st.text_len += (unsigned)snprintf(st.text + st.text_len, sizeof st.text - st.text_len, "%ld", (long)a);
        if (st.text_len >= sizeof st.text) st.text_len = sizeof st.text - 1;
        break;
      case 39: a = pop(); push(a < 0 ? -a : a); break;
      case 40: b = pop(); a = pop(); push(a < b ? a : b); break;
      case 41: b = pop(); a = pop(); push(a > b ? a : b); break;
      case 42:
        b = pop();
        a = pop();
        push(a < 0 ? 0 : a > b ? b : a);
        break;
      case 43: {
        uint32_t v = (uint32_t)pop(), n = 0;
        while (v) {
          n += v & 1;
          v >>= 1;
        }
        push((int32_t)n);
        break;
      }
      case 44: {
        uint32_t v = (uint32_t)pop(), r = 0;
        for (int i = 0; i < 32; i++) r |= ((v >> i) & 1u) << (31 - i);
        push((int32_t)r);
        break;
      }
      case 45: {
        int32_t n = pop(), f = 1;
        while (n > 1) f *= n--;
        push(f);
        break;
      }
      case 46: {
        int32_t n = pop(), x = 0, y = 1;
        while (n-- > 0) {
          int32_t t = x + y;
          x = y;
          y = t;
        }
        push(x);
        break;
      }
      case 47: {
        uint32_t n = (uint32_t)pop(), r = 0, bit = 1u << 30;
        while (bit > n) bit >>= 2;
        while (bit) {
          if (n >= r + bit) {
            n -= r + bit;
            r = (r >> 1) + bit;
          } else
            r >>= 1;
          bit >>= 2;
        }
        push((int32_t)r);
        break;
      }
      case 48: {
        int32_t x = pop(), y = pop();
        while (y) {
          int32_t t = x % y;
          x = y;
          y = t;
        }
        push(x);
        break;
      }
      case 49: a = pop(); push(a * a); break;
      case 50: a = pop(); push(a * a * a); break;
      case 51: for (int i = 0; i < 16; i++) st.vars[i] = 0; break;
      case 52: {
        int32_t sum = 0;
        for (int i = 0; i < st.sp; i++) sum += st.stack[i];
        push(sum);
        break;
      }
      case 53: {
        for (int i = 0, j = st.sp - 1; i < j; i++, j--) {
          int32_t t = st.stack[i];
          st.stack[i] = st.stack[j];
          st.stack[j] = t;
        }
        break;
      }
      case 54: a = pop(); push((a & 0xff) << 24 | (a & 0xff00) << 8 | ((a >> 8) & 0xff00) | ((a >> 24) & 0xff)); break;
      case 55: printf("vars: %ld %ld %ld %ld\n", (long)st.vars[0], (long)st.vars[1], (long)st.vars[2], (long)st.vars[3]); break;
      case 56: printf("stack depth %d, %u steps\n", st.sp, st.steps); break;
      case 57: a = pop(); st.vars[a & 15]++; break;
      case 58: a = pop(); st.vars[a & 15]--; break;
      case 59: {
        int32_t h = 5381;
        for (unsigned i = 0; i < st.text_len; i++) h = h * 33 + st.text[i];
        push(h);
        break;
      }
      case 60: {
        a = pop();
        for (unsigned i = 0; i < st.text_len; i++)
          if (st.text[i] >= 'a' && st.text[i] <= 'z' && a) st.text[i] = (char)(st.text[i] - 32);
        break;
      }
      case 61: push((int32_t)st.steps); break;
      case 62: a = pop(); pc = a < 0 || a >= len ? len : (int)a; break;
      default: printf("bad script op %u at %d\n", op, pc - 1); return -1;
    }
  }
  return st.sp > 0 ? st.stack[st.sp - 1] : 0;
}
