/* Game logic of the ARM9 kit program (Thumb): a state machine (a switch of 13 states), entities with
 * behaviour tables, a command table dispatched by name, sorting with comparators, formatted output,
 * handlers installed by address, tail calls, and functions nothing calls. Built with -DKIT_REVISION
 * (the arm9-revision program) it is a later revision of itself: one command changed, one added with
 * its string, everything after them moved. */
#include "game.h"
#include "system.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

volatile int game_frame;
volatile uint32_t game_keys;
volatile int game_result;
static int state = ST_BOOT;
static int state_timer;
static int menu_cursor;
static int gold = 100;

#define MAX_ENTITIES 24
static entity entities[MAX_ENTITIES];
static int entity_count;

/* --- entity behaviours: reached only through the tables below --------------------------------- */
static void walker_update(entity *e, int frame) {
  e->x += e->dx;
  if (e->x < 0 || e->x > 255) e->dx = -e->dx;
  if ((frame & 7) == 0) e->y += e->dy;
}
static int walker_score(const entity *e) { return e->hp * 2 + (e->x >> 4); }
static const char *walker_name(const entity *e) { return e->kind ? "walker+" : "walker"; }

static void flyer_update(entity *e, int frame) {
  e->x += e->dx * 2;
  e->y += (frame & 16) ? 1 : -1;
  if (e->y < 0) e->y = 0;
}
static int flyer_score(const entity *e) { return e->hp * 3 + e->y; }
static const char *flyer_name(const entity *e) {
  (void)e;
  return "flyer";
}

static void turret_update(entity *e, int frame) {
  if (frame % 30 == 0) fifo_deliver(2, (uint32_t)(e - entities));
}
static int turret_score(const entity *e) { return 50 + e->hp; }
static const char *turret_name(const entity *e) { return e->hp > 5 ? "turret" : "wreck"; }

static const struct entity_ops walker_ops = {walker_update, walker_score, walker_name};
static const struct entity_ops flyer_ops = {flyer_update, flyer_score, flyer_name};
static const struct entity_ops turret_ops = {turret_update, turret_score, turret_name};
static const struct entity_ops *const kinds[] = {&walker_ops, &flyer_ops, &turret_ops};

static entity *spawn(int kind, int x, int y) {
  if (entity_count >= MAX_ENTITIES) return 0;
  entity *e = &entities[entity_count++];
  e->ops = kinds[kind % 3];
  e->x = x;
  e->y = y;
  e->dx = (x & 1) ? 1 : -1;
  e->dy = 1;
  e->hp = 3 + kind * 2;
  e->kind = kind;
  return e;
}

static int by_score_desc(const void *a, const void *b) {
  const entity *x = a, *y = b;
  return y->ops->score(y) - x->ops->score(x);
}
static int by_position(const void *a, const void *b) {
  const entity *x = a, *y = b;
  return (x->y - y->y) * 256 + (x->x - y->x);
}

/* --- commands: a table of names and handlers --------------------------------------------------- */
static int cmd_spawn(int argc, char **argv) {
  int kind = argc > 1 ? (int)strtol(argv[1], 0, 10) : 0;
  return spawn(kind, 10 * entity_count, 20) ? 0 : -1;
}
static int cmd_sort(int argc, char **argv) {
  qsort(entities, (size_t)entity_count, sizeof(entity),
        argc > 1 && argv[1][0] == 'p' ? by_position : by_score_desc);
  return entity_count;
}
static int cmd_list(int argc, char **argv) {
  (void)argc;
  (void)argv;
  for (int i = 0; i < entity_count; i++) {
    printf("%2d %-8s at %3d,%3d score %d\n", i, entities[i].ops->name(&entities[i]), entities[i].x,
           entities[i].y, entities[i].ops->score(&entities[i]));
  }
  return entity_count;
}
#ifndef KIT_REVISION
static int cmd_gold(int argc, char **argv) {
  if (argc > 1) gold += atoi(argv[1]);
  printf("gold %d\n", gold);
  return gold;
}
#else
static int cmd_gold(int argc, char **argv) {
  if (argc > 1) gold += atoi(argv[1]);
  if (gold > 9999) gold = 9999;
  printf("gold %d of %d\n", gold, 9999);
  return gold;
}
static int cmd_heal(int argc, char **argv) {
  int amount = argc > 1 ? atoi(argv[1]) : 1;
  for (int i = 0; i < entity_count; i++) entities[i].hp += amount;
  printf("healed %d entities by %d\n", entity_count, amount);
  return entity_count;
}
#endif
static int cmd_math(int argc, char **argv) {
  if (argc < 4) return -1;
  int r = math_eval(atoi(argv[1]), atoi(argv[2]), atoi(argv[3]));
  printf("= %d\n", r);
  return r;
}
static int cmd_state(int argc, char **argv) {
  if (argc > 1) state = atoi(argv[1]);
  return state;
}

struct command {
  const char *name;
  int (*run)(int argc, char **argv);
  const char *help;
};
static const struct command commands[] = {
    {"spawn", cmd_spawn, "spawn KIND"}, {"sort", cmd_sort, "sort [p]"}, {"list", cmd_list, "list"},
    {"gold", cmd_gold, "gold [N]"},     {"math", cmd_math, "math OP A B"}, {"state", cmd_state, "state N"},
#ifdef KIT_REVISION
    {"heal", cmd_heal, "heal [N]"},
#endif
};

int run_command(const char *line) {
  char buffer[64];
  char *argv[8];
  int argc = 0;
  strncpy(buffer, line, sizeof buffer - 1);
  buffer[sizeof buffer - 1] = 0;
  for (char *p = strtok(buffer, " "); p && argc < 8; p = strtok(0, " ")) argv[argc++] = p;
  if (argc == 0) return -1;
  for (unsigned i = 0; i < sizeof commands / sizeof commands[0]; i++) {
    if (strcmp(commands[i].name, argv[0]) == 0) return commands[i].run(argc, argv);
  }
  printf("unknown command %s\n", argv[0]);
  return -2;
}

/* --- handlers installed by address -------------------------------------------------------------- */
static void on_vblank(void) { game_frame++; }
static void on_fifo_damage(uint32_t value, void *user) {
  int *hits = user;
  if (value < (uint32_t)entity_count) {
    entities[value].hp--;
    (*hits)++;
  }
}
static int damage_hits;

/* --- the state machine ------------------------------------------------------------------------- */
static int next_state(int s, uint32_t keys) {
  switch (s) {
  case ST_BOOT:
    return ST_TITLE;
  case ST_TITLE:
    return (keys & 8) ? ST_MENU : ST_TITLE;
  case ST_MENU:
    if (keys & 0x40) menu_cursor--;
    if (keys & 0x80) menu_cursor++;
    return (keys & 1) ? (menu_cursor & 1 ? ST_SHOP : ST_LOAD) : ST_MENU;
  case ST_LOAD:
    return state_timer > 3 ? ST_PLAY : ST_LOAD;
  case ST_PLAY:
    if (keys & 8) return ST_PAUSE;
    if (entity_count > 0 && world_population() > 20) return ST_BATTLE;
    return ST_PLAY;
  case ST_PAUSE:
    return (keys & 8) ? ST_PLAY : ST_PAUSE;
  case ST_DIALOG:
    return (keys & 1) ? ST_PLAY : ST_DIALOG;
  case ST_SHOP:
    if (gold >= 10 && (keys & 1)) gold -= 10;
    return (keys & 2) ? ST_MENU : ST_SHOP;
  case ST_BATTLE:
    return damage_hits > 5 ? ST_VICTORY : ST_BATTLE;
  case ST_VICTORY:
    return state_timer > 60 ? ST_CREDITS : ST_VICTORY;
  case ST_DEFEAT:
    return state_timer > 60 ? ST_TITLE : ST_DEFEAT;
  case ST_CREDITS:
    return state_timer > 120 ? ST_QUIT : ST_CREDITS;
  default:
    return ST_QUIT;
  }
}

static void update_entities(int frame) {
  for (int i = 0; i < entity_count; i++) entities[i].ops->update(&entities[i], frame);
}

/* A tail call: the compiler turns this into a branch. */
int total_score(void) { return world_total_score(); }

int game_step(int frame) {
  int s = next_state(state, game_keys);
  if (s != state) {
    state = s;
    state_timer = 0;
  } else
    state_timer++;
  update_entities(frame);
  world_tick(frame);
  return cpp_scene_step(frame) + compact_opcode(frame & 15, frame);
}

/* Never called: dead code that a linear sweep alone can find. */
int unused_debug_dump(int level) {
  int n = 0;
  for (int i = 0; i < entity_count; i++) {
    if (entities[i].hp < level) n += printf("weak %d\n", i);
  }
  return n;
}
int unused_checksum_all(void) { return (int)checksum_block(entities, sizeof entities) ^ gold; }

int main(int argc, char **argv) {
  (void)argc;
  (void)argv;
  irq_init();
  irq_set(IRQ_VBLANK, on_vblank);
  irq_enable(IRQ_VBLANK);
  install_exception_handler(guru_meditation);
  fifo_set_handler(2, on_fifo_damage, &damage_hits);
  for (int i = 0; i < 6; i++) spawn(i, 16 * i, 8 * i);
  run_command("sort");
  run_command("list");
  run_command("math 3 40 2");
  char copy[32];
  itcm_fast_copy(copy, "copied into itcm buffer", 24);
  printf("%s %lu\n", copy, (unsigned long)checksum_block(copy, 24));
  for (;;) {
    int frame = game_frame++;
    game_result = game_step(frame) + total_score();
    if (state == ST_QUIT) break;
    if ((frame & 63) == 0) run_command("gold 1");
    wait_vblank();
  }
  return 0;
}
