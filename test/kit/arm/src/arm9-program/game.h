#ifndef KIT_GAME_H
#define KIT_GAME_H
#include <stdint.h>

typedef struct entity entity;
struct entity_ops {
  void (*update)(entity *self, int frame);
  int (*score)(const entity *self);
  const char *(*name)(const entity *self);
};
struct entity {
  const struct entity_ops *ops;
  int x, y, dx, dy, hp, kind;
};

enum game_state { ST_BOOT, ST_TITLE, ST_MENU, ST_LOAD, ST_PLAY, ST_PAUSE, ST_DIALOG, ST_SHOP, ST_BATTLE, ST_VICTORY, ST_DEFEAT, ST_CREDITS, ST_QUIT };

extern volatile int game_frame;
extern volatile uint32_t game_keys;
extern volatile int game_result;

int run_command(const char *line);
void world_tick(int frame);
int world_population(void);
int world_total_score(void);
int cpp_scene_step(int frame);
int fixed_mul(int a, int b);
int fixed_div(int a, int b);
int math_eval(int op, int a, int b);
uint32_t checksum_block(const void *data, unsigned len);
void itcm_fast_copy(void *dst, const void *src, int len);
int compact_opcode(int op, int value);
#endif
