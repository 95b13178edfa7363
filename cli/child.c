/* Waiting for a child program (gmsh for `comply tetmesh`, python3 for `comply plot`).
 *
 * Ctrl-C reaches the child too (it is in the same process group), so SIGINT is ignored while
 * waiting and the child's status says it was interrupted, as system() does. SIGTERM, sent to
 * comply alone (a job scheduler, `kill PID`), is passed on to the child, and comply waits for it
 * to end: before, comply died at once and the child went on writing its output, orphaned. The
 * status is the child's exit status, 128 + N if a signal N ended it, and 128 + SIGTERM when
 * comply was sent SIGTERM (so that the command exits 143, the shell convention). */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>

#include "cli.h"

static volatile sig_atomic_t g_child = 0, g_term = 0;

static void pass_term(int sig) {
  (void)sig;
  g_term = 1;
  if (g_child > 0) kill((pid_t)g_child, SIGTERM);
}

int cli_wait_child(pid_t pid, int* status_out) {
  struct sigaction ignore, term, old_int, old_term;
  memset(&ignore, 0, sizeof ignore);
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  memset(&term, 0, sizeof term);
  term.sa_handler = pass_term;
  sigemptyset(&term.sa_mask);
  g_term = 0;
  g_child = (sig_atomic_t)pid;
  sigaction(SIGINT, &ignore, &old_int);
  sigaction(SIGTERM, &term, &old_term);
  int status = 0;
  pid_t waited;
  while ((waited = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
    ;
  int e = errno;
  g_child = 0;
  sigaction(SIGINT, &old_int, NULL);
  sigaction(SIGTERM, &old_term, NULL);
  if (waited < 0) {
    errno = e;
    return -1;
  }
  int code = WIFEXITED(status) ? WEXITSTATUS(status)
             : WIFSIGNALED(status) ? 128 + WTERMSIG(status)
                                   : CLI_FAILED;
  if (g_term) code = 128 + SIGTERM;
  if (status_out) *status_out = status;
  return code;
}
