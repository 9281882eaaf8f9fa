/* Can a program get the collector when it is exec'd? See progcheck.h. Only system calls: the
 * collector calls this in a vfork child and right before exec. */
#define _GNU_SOURCE
#include "progcheck.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>

int rocsys_progcheck_elf_dynamic(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    int rc = -1;
    Elf64_Ehdr eh;

    if (fd < 0)
        return -1;
    if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
        memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        eh.e_phentsize != sizeof(Elf64_Phdr))
        goto out;
    rc = 0;
    for (int i = 0; i < eh.e_phnum; i++) {
        Elf64_Phdr ph;
        if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + (Elf64_Off)i * sizeof(ph))) !=
            (ssize_t)sizeof(ph))
            break;
        if (ph.p_type == PT_INTERP) {
            rc = 1;
            break;
        }
    }
out:
    close(fd);
    return rc;
}

int rocsys_progcheck_resolve(const char *name, const char *path_env, char *out, size_t cap)
{
    int best = ENOENT;

    if (strchr(name, '/')) {
        snprintf(out, cap, "%s", name);
        return access(out, F_OK) == 0 ? 0 : errno;
    }
    if (!path_env || !*path_env)
        path_env = "/usr/local/bin:/usr/bin:/bin";
    while (*path_env) {
        size_t len = strcspn(path_env, ":");
        struct stat st;
        snprintf(out, cap, "%.*s/%s", (int)len, len ? path_env : ".", name);
        if (stat(out, &st) == 0 && S_ISREG(st.st_mode)) {
            if (access(out, X_OK) == 0)
                return 0;
            best = EACCES;
        }
        path_env += len;
        if (*path_env == ':')
            path_env++;
    }
    return best;
}

/* The interpreter of a "#!" script into out, or "" if path is not a script. */
static void script_interpreter(const char *path, char *out, size_t cap)
{
    char buf[512];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n;

    out[0] = '\0';
    if (fd < 0)
        return;
    n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n < 3 || buf[0] != '#' || buf[1] != '!')
        return;
    buf[n] = '\0';
    char *p = buf + 2;
    while (*p == ' ' || *p == '\t')
        p++;
    size_t len = strcspn(p, " \t\r\n");
    snprintf(out, cap, "%.*s", (int)len, p);
}

/* 1 if exec of path (status st) runs in secure-execution mode, where the loader ignores
 * LD_PRELOAD: the kernel's rule is that the new effective ids differ from the real ones (a
 * set-user-ID or set-group-ID file of another owner, or file capabilities gained by a
 * non-root user), unless the file system is mounted nosuid. */
static int secure_exec(const char *path, const struct stat *st)
{
    struct statvfs vfs;

    if (statvfs(path, &vfs) == 0 && (vfs.f_flag & ST_NOSUID))
        return 0;
    if ((st->st_mode & S_ISUID) && st->st_uid != getuid())
        return 1;
    if ((st->st_mode & S_ISGID) && st->st_gid != getgid())
        return 1;
    return getuid() != 0 && getxattr(path, "security.capability", NULL, 0) > 0;
}

int rocsys_progcheck_inspect(const char *path, char *checked_out, size_t cap)
{
    char interp[512];
    struct stat st;
    const char *elf;

    if (checked_out && cap)
        snprintf(checked_out, cap, "%s", path);
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return ROCSYS_PROG_OK;
    if (secure_exec(path, &st))
        return ROCSYS_PROG_SECURE;
    script_interpreter(path, interp, sizeof(interp));
    elf = interp[0] ? interp : path;
    if (checked_out && cap)
        snprintf(checked_out, cap, "%s", elf);
    return rocsys_progcheck_elf_dynamic(elf) == 0 ? ROCSYS_PROG_STATIC : ROCSYS_PROG_OK;
}

const char *rocsys_progcheck_reason(int code)
{
    switch (code) {
    case ROCSYS_PROG_NO_ENV:
        return "environment cleared before exec (no LD_PRELOAD)";
    case ROCSYS_PROG_SECURE:
        return "setuid/setgid program (LD_PRELOAD ignored)";
    case ROCSYS_PROG_STATIC:
        return "statically linked (nothing can be preloaded)";
    default:
        return "";
    }
}
