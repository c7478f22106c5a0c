/* sandbox_probe: put into a box by the security suite and run there. Each case attempts one
 * thing a box must not be able to do (or, for the counting cases, measures a limit) and
 * reports on stdout. Exit status: 0 the attempt succeeded, 1 it was refused, 2 bad usage.
 *
 *   read PATH | write PATH | connect PORT | kill PID | list | ptrace | mount | unshare
 *   fds          report any open descriptor past stdin, stdout and stderr (one inherited
 *                from the worker, such as its socket to the pool)
 *   killgroup    send SIGTERM to the probe's whole process group (ignoring it itself)
 *   forks N      fork up to N sleeping children; print how many were made
 *   memory MIB   allocate and touch up to MIB MiB; print how many were touched
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static int report(int ok, const char* what) {
  printf("%s: %s\n", what, ok ? "succeeded" : strerror(errno));
  return ok ? 0 : 1;
}

static int try_read(const char* path) {
  char buffer[256] = {0};
  const int fd = open(path, O_RDONLY);
  if (fd < 0) return report(0, "open");
  const ssize_t got = read(fd, buffer, sizeof buffer - 1);
  printf("%s\n", buffer);
  return report(got >= 0, "read");
}

static int try_write(const char* path) {
  const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return report(0, "open");
  return report(write(fd, "escaped\n", 8) == 8, "write");
}

static int try_connect(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return report(0, "socket");
  struct sockaddr_in address = {0};
  address.sin_family = AF_INET;
  address.sin_port = htons((uint16_t)port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return report(connect(fd, (struct sockaddr*)&address, sizeof address) == 0, "connect");
}

static int list_processes(void) {
  DIR* proc = opendir("/proc");
  if (proc == NULL) return report(0, "opendir /proc");
  int count = 0;
  for (struct dirent* entry; (entry = readdir(proc)) != NULL;) {
    if (entry->d_name[0] >= '0' && entry->d_name[0] <= '9') ++count;
  }
  printf("%d\n", count);
  return 0;
}

static int inherited_descriptors(void) {
  int found = 0;
  for (int fd = 3; fd < 1024; ++fd) {
    if (fcntl(fd, F_GETFD) >= 0) {
      printf("descriptor %d is open\n", fd);
      found = 1;
    }
  }
  return report(found, "inherit a descriptor");
}

static int try_ptrace(void) {
  const pid_t child = fork();
  if (child == 0) {
    pause();
    _exit(0);
  }
  const int attached = ptrace(PTRACE_ATTACH, child, NULL, NULL) == 0;
  const int saved = errno;
  kill(child, SIGKILL);
  waitpid(child, NULL, 0);
  errno = saved;
  return report(attached, "ptrace attach");
}

static int try_unshare(void) {
  const int flags[] = {CLONE_NEWUSER, CLONE_NEWNS, CLONE_NEWNET, CLONE_NEWPID};
  int any = 0;
  for (size_t i = 0; i < sizeof flags / sizeof flags[0]; ++i) {
    if (unshare(flags[i]) == 0) any = 1;
  }
  return report(any, "unshare");
}

static int count_forks(int most) {
  int made = 0;
  for (; made < most; ++made) {
    const pid_t child = fork();
    if (child < 0) break;
    if (child == 0) {
      pause();
      _exit(0);
    }
  }
  printf("%d\n", made);
  fflush(stdout);
  kill(0, SIGKILL);
  return 0;
}

static int touch_memory(long most_mib) {
  long touched = 0;
  for (; touched < most_mib; ++touched) {
    char* block = malloc(1 << 20);
    if (block == NULL) break;
    memset(block, 1, 1 << 20);
  }
  printf("%ld\n", touched);
  return touched == most_mib ? 0 : 1;
}

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  const char* what = argv[1];
  const char* arg = argc > 2 ? argv[2] : "";
  setvbuf(stdout, NULL, _IONBF, 0);
  if (strcmp(what, "read") == 0) return try_read(arg);
  if (strcmp(what, "write") == 0) return try_write(arg);
  if (strcmp(what, "connect") == 0) return try_connect(atoi(arg));
  if (strcmp(what, "kill") == 0) return report(kill(atoi(arg), 0) == 0, "kill");
  if (strcmp(what, "list") == 0) return list_processes();
  if (strcmp(what, "killgroup") == 0) {
    signal(SIGTERM, SIG_IGN);
    return report(kill(0, SIGTERM) == 0, "kill group");
  }
  if (strcmp(what, "fds") == 0) return inherited_descriptors();
  if (strcmp(what, "ptrace") == 0) return try_ptrace();
  if (strcmp(what, "mount") == 0) return report(mount("none", "/workspace", "tmpfs", 0, NULL) == 0, "mount");
  if (strcmp(what, "unshare") == 0) return try_unshare();
  if (strcmp(what, "forks") == 0) return count_forks(atoi(arg));
  if (strcmp(what, "memory") == 0) return touch_memory(atol(arg));
  return 2;
}
