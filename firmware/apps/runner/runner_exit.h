/* Runner exit codes (semihosting exit status). 0/1/3 and 64+ are the platform's
 * (eor/platform.h); orchestrator/runner/exit_codes.py mirrors this list (a test checks). */
#ifndef RUNNER_EXIT_H
#define RUNNER_EXIT_H

enum {
  RUNNER_EXIT_AREA = 10,   /* model or input area missing / corrupt (not loaded?) */
  RUNNER_EXIT_LOAD = 11,   /* Program::load failed (not a valid .pte for this runtime) */
  RUNNER_EXIT_ALLOC = 12,  /* a memory pool is too small (method pool, planned buffers) */
  RUNNER_EXIT_METHOD = 13, /* load_method failed (missing kernel / delegate, bad program) */
  RUNNER_EXIT_INPUT = 14,  /* inputs do not match the method's inputs */
  RUNNER_EXIT_EXEC = 15,   /* Method::execute failed */
  RUNNER_EXIT_NPU = 16     /* the Ethos-U NPU could not be initialised */
};

#endif
