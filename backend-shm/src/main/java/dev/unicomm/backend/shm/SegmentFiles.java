package dev.unicomm.backend.shm;

import dev.unicomm.api.CommException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The shared files behind the symmetric heaps: {@code <dir>/unicomm-shm-<job>-r<rank>-p<pid>},
 * owner-only (0600). The pid in the name lets a later run find files of processes that died before
 * removing them.
 */
final class SegmentFiles {
    private SegmentFiles() {}

    static final String PREFIX = "unicomm-shm-";
    private static final Pattern NAME = Pattern.compile(Pattern.quote(PREFIX) + "([0-9a-f]+)-r(\\d+)-p(\\d+)");

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
     * Deletes files of ours in {@code dir} whose creating process no longer runs. Never fails the
     * caller: files of other users or vanishing files are skipped.
     *
     * @return the files deleted
     */
    static List<Path> reclaimStale(Path dir) {
        List<Path> removed = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, PREFIX + "*")) {
            for (Path f : files) {
                long pid = pidOf(f.getFileName().toString());
                if (pid <= 0 || ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) continue;
                try {
                    if (Files.deleteIfExists(f)) removed.add(f);
                } catch (IOException e) {
                    // Another user's file, or already gone: not ours to reclaim.
                }
            }
        } catch (IOException e) {
            // An unreadable directory hides nothing we could reclaim; creating our own file will report it.
        }
        return removed;
    }

    /**
     * Creates a new owner-only file of {@code bytes} (sparse: tmpfs allocates pages on first touch)
     * and maps it into {@code arena}.
     *
     * @throws CommException if the file exists already, the directory is not writable or lacks space
     */
    static MemorySegment create(Path file, long bytes, Arena arena) {
        try {
            long usable = Files.getFileStore(file.getParent()).getUsableSpace();
            if (usable < bytes)
                throw new CommException("not enough space in " + file.getParent() + " for a " + bytes
                        + "-byte symmetric heap file (" + usable + " bytes free): lower unicomm.heap.size or free space there");
            try (FileChannel ch = FileChannel.open(file,
                    EnumSet.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE),
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))) {
                ch.write(ByteBuffer.wrap(new byte[1]), bytes - 1);
                return ch.map(FileChannel.MapMode.READ_WRITE, 0, bytes, arena);
            }
        } catch (IOException e) {
            throw new CommException("cannot create the shared heap file " + file + ": " + e, e);
        }
    }

    /**
     * Maps an existing file of another PE into {@code arena}.
     *
     * @throws CommException if it is missing or its size is not {@code bytes}
     */
    static MemorySegment map(Path file, long bytes, Arena arena) {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long size = ch.size();
            if (size != bytes)
                throw new CommException("shared heap file " + file + " has " + size + " bytes, expected " + bytes);
            return ch.map(FileChannel.MapMode.READ_WRITE, 0, bytes, arena);
        } catch (NoSuchFileException e) {
            throw new CommException("shared heap file " + file + " of a peer PE is missing (removed by someone else?)", e);
        } catch (IOException e) {
            throw new CommException("cannot map the shared heap file " + file + " of a peer PE: " + e, e);
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
