/* Data the start-up code copies into DTCM (0x0B000000). */
#include <stdint.h>
__attribute__((section(".dtcm"))) uint32_t dtcm_counters[4] = {1, 2, 3, 4};
__attribute__((section(".dtcm"))) char dtcm_banner[] = "dtcm data";
