package dev.unicomm.backend.shm;

import dev.unicomm.api.CommException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The shared files behind the symmetric heaps: {@code <dir>/unicomm-shm-<job>-r<rank>-p<pid>},
 * owner-only (0600).
 *
 * <p>Liveness is a lock, not a pid: the creating PE holds an exclusive {@code fcntl} lock on the
 * file's first byte for as long as it lives, and the kernel drops it when the process dies. That
 * holds across PID namespaces and containers that share the folder (a pid from another namespace
 * means nothing here), so a file whose lock is held is never deleted and a peer whose lock is held
 * is never reported dead. The pid in the name is only for people reading the folder.
 *
 * <p>Space is reserved when the file is created (its pages are written), so a full folder is a clear
 * error at open, never a SIGBUS on first touch of a page.
 */
final class SegmentFiles {
    private SegmentFiles() {}

    static final String PREFIX = "unicomm-shm-";
    private static final Pattern NAME = Pattern.compile(Pattern.quote(PREFIX) + "([0-9a-f]+)-r(\\d+)-p(\\d+)");
    /** Setting that sizes the files, for messages. */
    static final String HEAP_SETTING = "unicomm.heap.size (UNICOMM_HEAP_SIZE)";

    static final String DIR_SETTING = "unicomm.shm.dir (UNICOMM_SHM_DIR)";

    /**
     * Files this JVM created and still holds. POSIX record locks belong to the process, and closing
     * any descriptor of a file drops them all, so this JVM must never open its own live files to probe them.
     */
    private static final Set<Path> HELD = ConcurrentHashMap.newKeySet();

    /** A heap file this process has open: its mapping, and the channel that holds (own file) or probes (peer's) the lock. */
    record Handle(Path path, MemorySegment segment, FileChannel channel, boolean own) implements AutoCloseable {
        /** Whether the file's creator still lives (its lock is held; always true for our own file). */
        boolean ownerAlive() {
            return own || lockHeld(channel);
        }

        /** Closes the channel (for our own file this releases the lock). The mapping lives on in its arena. */
        @Override
        public void close() {
            try {
                channel.close();
            } catch (IOException e) {
                // nothing left to release
            } finally {
                if (own) HELD.remove(path.toAbsolutePath());
            }
        }
    }

    /** The file name of {@code rank}'s heap in job {@code jobId}, created by process {@code pid}. */
    static String name(String jobId, int rank, long pid) {
        return PREFIX + jobId + "-r" + rank + "-p" + pid;
    }

    /** The pid encoded in a file name of ours, or -1 if the name is not one of ours. */
    static long pidOf(String fileName) {
        Matcher m = NAME.matcher(fileName);
        return m.matches() ? Long.parseLong(m.group(3)) : -1;
    }

    /**
     * Deletes files of ours in {@code dir} whose creator is gone (nobody holds their lock). Never
     * fails the caller: files of other users, live files and vanishing files are skipped.
     *
     * @return the files deleted
     */
    static List<Path> reclaimStale(Path dir) {
        return reclaimIn(dir, FRESH_GRACE_MS);
    }

    /**
     * As {@link #reclaimStale}, and unrenamed new files are taken once older than {@code newGraceMs}
     * (0 in a job folder whose start failed: whatever is left there is of a dead or failing PE).
     */
    static List<Path> reclaimIn(Path dir, long newGraceMs) {
        List<Path> removed = new ArrayList<>();
        int me;
        try {
            me = JobDirectory.currentUid();
        } catch (IOException e) {
            return removed;
        }
        sweep(dir, me, PREFIX + "*", f -> pidOf(f.getFileName().toString()) > 0, removed);
        // Files a creator died with before renaming them; the age rule covers the instant between create and lock.
        sweep(dir, me, "." + PREFIX + "*.new", f -> olderThan(f, newGraceMs) || creatorGone(f), removed);
        return removed;
    }

    /** Deletes the names of this JVM's own files in {@code dir} (new ones included); their locks and mappings stay. */
    static void deleteOwnIn(Path dir) {
        for (Path f : HELD) if (dir.toAbsolutePath().equals(f.getParent())) delete(f);
    }

    /** How old an unrenamed new file must be before a sweep may take it (its creator locks it microseconds after creating it). */
    static final long FRESH_GRACE_MS = 60_000;

    /**
     * Whether the process named in an unrenamed new file's name is gone (in this PID namespace): its file,
     * unlocked, is then a dead PE's at once rather than after the grace. A creator alive in another PID
     * namespace is taken for gone only in the microseconds between creating its file and locking it.
     */
    private static boolean creatorGone(Path f) {
        String n = f.getFileName().toString();
        if (!n.startsWith(".") || !n.endsWith(".new")) return false;
        long pid = pidOf(n.substring(1, n.length() - 4));
        return pid > 0 && ProcessHandle.of(pid).isEmpty();
    }

    private static boolean olderThan(Path f, long ms) {
        if (ms <= 0) return true;
        try {
            return System.currentTimeMillis() - Files.getLastModifiedTime(f).toMillis() > ms;
        } catch (IOException e) {
            return false;
        }
    }

    private static void sweep(
            Path dir, int owner, String glob, java.util.function.Predicate<Path> candidate, List<Path> removed) {
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, glob)) {
            for (Path f : files) {
                if (!candidate.test(f) || HELD.contains(f.toAbsolutePath()) || !ownedBy(f, owner)) continue;
                try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                    FileLock lock = ch.tryLock(0, 1, false);
                    if (lock == null) continue; // its creator lives (in whatever PID namespace)
                    try {
                        if (Files.deleteIfExists(f)) removed.add(f);
                    } finally {
                        lock.release();
                    }
                } catch (IOException | OverlappingFileLockException e) {
                    // Another user's file, held by this JVM, or already gone: not ours to reclaim.
                }
            }
        } catch (IOException e) {
            // An unreadable directory hides nothing we could reclaim; creating our own file will report it.
        }
    }

    /** Whether {@code f} (not followed if a link) belongs to uid {@code owner}: root must not take other users' files. */
    private static boolean ownedBy(Path f, int owner) {
        try {
            return (Integer) Files.getAttribute(f, "unix:uid", LinkOption.NOFOLLOW_LINKS) == owner;
        } catch (IOException e) {
            return false;
        }
    }

    /** Whether another process (or this JVM) holds the lock of the file behind {@code ch}. */
    static boolean lockHeld(FileChannel ch) {
        try {
            FileLock probe = ch.tryLock(0, 1, false);
            if (probe == null) return true;
            probe.release();
            return false;
        } catch (OverlappingFileLockException e) {
            return true; // held inside this JVM (PEs as threads)
        } catch (IOException e) {
            return true; // cannot tell: never call a peer dead on a guess
        }
    }

    /**
     * Creates a new owner-only file of {@code bytes}, takes its lock, backs every page (tmpfs
     * allocates a page when it is first written, so running out of space fails here, not later with
     * SIGBUS) and maps it into {@code arena}.
     *
     * @throws CommException if the file exists already, the directory is not writable or lacks space
     */
    static Handle create(Path file, long bytes, Arena arena) {
        Path dir = file.toAbsolutePath().getParent();
        // Made under a name sweeps ignore, locked, then renamed: no sweep can see it unlocked.
        Path fresh = dir.resolve("." + file.getFileName() + ".new");
        FileChannel ch = null;
        boolean ok = false, held = false, renamed = false;
        try {
            long usable = Files.getFileStore(dir).getUsableSpace();
            if (usable < bytes) throw noSpace(dir, bytes, usable, null);
            if (Files.exists(file)) throw new IOException("file exists");
            HELD.add(fresh); // ours before it exists: an exit removes it, and no sweep of this JVM opens it
            ch = FileChannel.open(
                    fresh,
                    EnumSet.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE),
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            JobDirectory.refuseIfExiting(fresh);
            if (ch.tryLock(0, 1, false) == null)
                throw new CommException("cannot lock the new shared heap file " + fresh);
            reserve(ch, dir, bytes);
            held = HELD.add(file.toAbsolutePath());
            Files.move(
                    fresh,
                    file,
                    StandardCopyOption.ATOMIC_MOVE); // rename(2) would replace a file made meanwhile: checked above
            renamed = true;
            JobDirectory.refuseIfExiting(file); // both names stay tracked until here: an exit deletes whichever exists
            HELD.remove(fresh);
            MemorySegment seg = ch.map(FileChannel.MapMode.READ_WRITE, 0, bytes, arena);
            ok = true;
            return new Handle(file, seg, ch, true);
        } catch (IOException e) {
            throw new CommException("cannot create the shared heap file " + file + ": " + e, e);
        } finally {
            if (!ok) {
                if (held) HELD.remove(file.toAbsolutePath());
                if (ch != null) {
                    try {
                        ch.close();
                        Files.deleteIfExists(renamed ? file : fresh);
                    } catch (IOException e) {
                        // left for reclaimStale
                    }
                }
                HELD.remove(fresh);
            }
        }
    }

    /** Writes every page of the file (zeros); {@code ENOSPC} becomes a message naming the folder, sizes and settings. */
    static void reserve(FileChannel ch, Path dir, long bytes) throws IOException {
        ByteBuffer zeros = ByteBuffer.allocateDirect((int) Math.min(bytes, 1 << 20));
        long at = 0;
        try {
            while (at < bytes) {
                zeros.clear().limit((int) Math.min(zeros.capacity(), bytes - at));
                at += ch.write(zeros, at);
            }
        } catch (IOException e) {
            if (String.valueOf(e.getMessage()).contains("No space left")) throw noSpace(dir, bytes, at, e);
            throw e;
        }
    }

    private static CommException noSpace(Path dir, long bytes, long free, IOException cause) {
        return new CommException(
                "not enough space in " + dir + " for a " + bytes + "-byte shared heap file ("
                        + (cause == null ? free + " bytes free" : "ran out after " + free + " bytes") + "): lower "
                        + HEAP_SETTING
                        + ", free or enlarge " + dir + " (a tmpfs: mount -o remount,size=...), or point " + DIR_SETTING
                        + " elsewhere",
                cause);
    }

    /**
     * Whole-job check before any file is made: {@code ranks} files of {@code bytes} must fit in
     * {@code dir}. All PEs of a shm job share the folder, so one PE's heap fitting says little.
     *
     * @throws CommException naming the folder, the sizes and the settings
     */
    static void requireJobFits(Path dir, int ranks, long bytes) {
        long need = Math.multiplyExact(ranks, bytes);
        long usable;
        try {
            usable = Files.getFileStore(dir).getUsableSpace();
        } catch (IOException e) {
            return; // creating the files will say what is wrong with the folder
        }
        if (usable < need)
            throw new CommException(
                    "not enough space in " + dir.toAbsolutePath() + " for this job's shared heaps: " + ranks
                            + " ranks x " + bytes + " bytes (heap + " + Control.BYTES + " control bytes each) = " + need
                            + " bytes, "
                            + usable + " bytes free: lower " + HEAP_SETTING + ", free or enlarge " + dir
                            + " (a tmpfs: mount -o remount,size=...), or point " + DIR_SETTING + " elsewhere");
    }

    /**
     * Opens and maps an existing file of another PE into {@code arena}; the channel stays open to probe its lock.
     *
     * @throws CommException if it is missing or its size is not {@code bytes}
     */
    static Handle map(Path file, long bytes, Arena arena) {
        FileChannel ch = null;
        try {
            ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
            long size = ch.size();
            if (size != bytes)
                throw new CommException("shared heap file " + file + " has " + size + " bytes, expected " + bytes);
            Handle h = new Handle(file, ch.map(FileChannel.MapMode.READ_WRITE, 0, bytes, arena), ch, false);
            ch = null;
            return h;
        } catch (NoSuchFileException e) {
            throw new CommException(
                    "shared heap file " + file + " of a peer PE is missing (removed by someone else?)", e);
        } catch (IOException e) {
            throw new CommException("cannot map the shared heap file " + file + " of a peer PE: " + e, e);
        } finally {
            if (ch != null) {
                try {
                    ch.close();
                } catch (IOException e) {
                    // nothing to release
                }
            }
        }
    }

    /** Deletes {@code file} if it exists; failures are ignored (the next start reclaims it). */
    static void delete(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            // Left for reclaimStale of the next run.
        }
    }
}
