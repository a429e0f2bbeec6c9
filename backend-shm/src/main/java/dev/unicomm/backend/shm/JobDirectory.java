package dev.unicomm.backend.shm;

import dev.unicomm.api.CommException;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * A job's private folder for its heap files: {@code <dir>/unicomm-job-<128 random bits>}, mode 0700.
 * Rank 0 makes it and tells the other ranks its name only through the (authenticated) rendezvous
 * store, so no other user can predict the names the job is about to use, nor create anything in it:
 * a shared {@code /dev/shm} cannot be used to stop a job from starting.
 *
 * <p>Names exist only while the job starts: every PE unlinks its file once all PEs mapped it, and
 * whoever unlinks last removes the folder. A PE that fails or exits while the job starts removes its
 * own file and those of PEs that died (nobody holds their lock); a later start of the same user
 * sweeps folders of jobs that died whole.
 */
final class JobDirectory {
    private JobDirectory() {}

    static final String PREFIX = "unicomm-job-";
    private static final Pattern NAME = Pattern.compile(Pattern.quote(PREFIX) + "[0-9a-f]{32}");
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rwx------");
    /** Draws of a fresh name before giving up (a clash of 128 random bits means something else is wrong). */
    private static final int CREATE_TRIES = 4;
    /** How old an empty job folder must be before a sweep takes it (rank 0 makes its file in it milliseconds after making it). */
    static final long EMPTY_GRACE_MS = SegmentFiles.FRESH_GRACE_MS;

    /** Job folders this JVM uses that may still hold names; an exit removes what it can of them. */
    private static final Set<Path> OPEN = ConcurrentHashMap.newKeySet();
    /** Set when the exit clean-up starts: a name made after that would outlive the JVM, so none is made. */
    private static volatile boolean exiting;

    private static final Thread EXIT_CLEANUP = Thread.ofPlatform().unstarted(JobDirectory::cleanUpAtExit);

    static {
        try {
            Runtime.getRuntime().addShutdownHook(EXIT_CLEANUP);
        } catch (IllegalStateException e) {
            // the JVM is already exiting: nothing of ours can be open yet
        }
    }

    /** Rank 0: a fresh private folder under {@code parent} whose name nobody can guess. */
    static Path create(Path parent) {
        SecureRandom random = new SecureRandom();
        for (int i = 0; i < CREATE_TRIES; i++) {
            byte[] id = new byte[16];
            random.nextBytes(id);
            Path d = parent.toAbsolutePath().resolve(PREFIX + HexFormat.of().formatHex(id));
            try {
                OPEN.add(d); // before the name exists: an exit from here on removes it
                Files.createDirectory(d, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
                refuseIfExiting(d);
                Files.setPosixFilePermissions(d, OWNER_ONLY); // the umask may have taken bits away
                requirePrivate(d);
                return d;
            } catch (FileAlreadyExistsException e) {
                OPEN.remove(d); // someone made this name: draw another
            } catch (IOException e) {
                throw new CommException(
                        "cannot create the job's shared heap folder in " + parent + ": " + e
                                + "; make it writable for this user, or point " + SegmentFiles.DIR_SETTING
                                + " elsewhere",
                        e);
            }
        }
        throw new CommException("cannot create the job's shared heap folder in " + parent + ": " + CREATE_TRIES
                + " random names were all taken");
    }

    /** Another rank: the folder rank 0 published, after checking it is private to this user. */
    static Path join(String published) {
        Path d = Path.of(published);
        if (!d.isAbsolute() || !NAME.matcher(d.getFileName().toString()).matches())
            throw new CommException(
                    "the rendezvous store names '" + published + "' as the job's shared heap folder, which is not one");
        OPEN.add(d);
        requirePrivate(d);
        return d;
    }

    /**
     * Checks that {@code d} is a folder (not a link) owned by this process's user with mode 0700, so
     * that nobody else can have put or can put anything in it.
     *
     * @throws CommException naming what is wrong
     */
    static void requirePrivate(Path d) {
        try {
            PosixFileAttributes a = Files.readAttributes(d, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            int owner = (Integer) Files.getAttribute(d, "unix:uid", LinkOption.NOFOLLOW_LINKS);
            int me = currentUid();
            if (!a.isDirectory() || owner != me || !a.permissions().equals(OWNER_ONLY))
                throw new CommException("the job's shared heap folder " + d + " is not private to this user (uid " + me
                        + "): it is "
                        + (a.isDirectory() ? "a folder" : a.isSymbolicLink() ? "a symbolic link" : "a file")
                        + " of uid " + owner + " with mode " + PosixFilePermissions.toString(a.permissions())
                        + "; every rank of a shm job must run as the same user");
        } catch (IOException e) {
            throw new CommException("cannot check the job's shared heap folder " + d + ": " + e, e);
        }
    }

    /** The real user id of this process (the owner of its {@code /proc} entry). */
    static int currentUid() throws IOException {
        return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
    }

    /**
     * Removes the files in {@code d} whose creator is gone (nobody holds their lock), however young, then
     * the folder if it is empty. For a PE whose job failed to start: every file left is of a dead PE or
     * of one that fails too.
     */
    static void removeDead(Path d) {
        // A peer killed a moment ago may still hold its lock while the kernel tears it down (its store
        // connection, which told us, can close first): sweep again for a short, bounded while.
        for (int attempt = 0; attempt < DEAD_SWEEPS; attempt++) {
            SegmentFiles.reclaimIn(d, 0);
            removeIfEmpty(d);
            if (!Files.exists(d)) return;
            try {
                Thread.sleep(DEAD_SWEEP_PAUSE_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /**
     * After a start that failed before this PE learnt the job's folder: sweeps this user's dead job
     * folders a few times (a rank killed a moment ago may still hold its lock), at most {@link #DEAD_SWEEPS} times.
     */
    static void reclaimAfterFailedStart(Path parent) {
        for (int attempt = 0; attempt < DEAD_SWEEPS / 5; attempt++) {
            reclaimStale(parent);
            try {
                Thread.sleep(DEAD_SWEEP_PAUSE_MS * 5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** At most 25 sweeps 40 ms apart (1 s) for the files of peers that died while the job started. */
    private static final int DEAD_SWEEPS = 25;

    private static final long DEAD_SWEEP_PAUSE_MS = 40;

    /** Removes {@code d} if it is empty (the last PE to unlink its file does); it stays while a PE's file is in it. */
    static void removeIfEmpty(Path d) {
        try {
            Files.deleteIfExists(d);
            OPEN.remove(d);
        } catch (IOException e) {
            // not empty: a PE still has its name there, and removes the folder after unlinking it
        }
    }

    /** This JVM no longer has names in {@code d} (its PEs all unlinked theirs). */
    static void forget(Path d) {
        OPEN.remove(d);
    }

    /**
     * Sweeps {@code parent} for job folders of this user whose PEs all died: their files nobody holds,
     * then the folders left empty (a folder that was empty already only once older than {@link #EMPTY_GRACE_MS}). Never fails the caller;
     * other users' folders are never touched.
     *
     * @return the folders removed
     */
    static List<Path> reclaimStale(Path parent) {
        List<Path> removed = new ArrayList<>();
        int me;
        try {
            me = currentUid();
        } catch (IOException e) {
            return removed;
        }
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(parent, PREFIX + "*")) {
            for (Path d : dirs) {
                if (!NAME.matcher(d.getFileName().toString()).matches() || OPEN.contains(d.toAbsolutePath())) continue;
                try {
                    PosixFileAttributes a =
                            Files.readAttributes(d, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                    if (!a.isDirectory()
                            || (Integer) Files.getAttribute(d, "unix:uid", LinkOption.NOFOLLOW_LINKS) != me) continue;
                    boolean old = System.currentTimeMillis()
                                    - Files.getLastModifiedTime(d, LinkOption.NOFOLLOW_LINKS)
                                            .toMillis()
                            > EMPTY_GRACE_MS;
                    // Emptied by this sweep: every file was a dead PE's. Empty already: only once old (rank 0 may be
                    // about to fill it).
                    boolean hadDeadFiles = !SegmentFiles.reclaimIn(d, SegmentFiles.FRESH_GRACE_MS)
                            .isEmpty();
                    if ((old || hadDeadFiles) && Files.deleteIfExists(d)) removed.add(d);
                } catch (IOException e) {
                    // not empty (a live job), or gone meanwhile: not ours to take
                }
            }
        } catch (IOException e) {
            // an unreadable folder hides nothing we could reclaim
        }
        return removed;
    }

    /**
     * Called right after making {@code made} (a folder, or a heap file's name), which this JVM already
     * tracks: if the exit clean-up has started it may have missed it, so remove it and fail.
     * (Tracking first and checking after means the clean-up, which sets the flag first, sees every name made before.)
     */
    static void refuseIfExiting(Path made) {
        if (!exiting) return;
        SegmentFiles.delete(made);
        throw new CommException("the JVM is exiting: no shared heap is opened now");
    }

    /** At exit (also when {@code unicomm run} died and the rank exits): remove this JVM's names and dead peers'. */
    private static void cleanUpAtExit() {
        exiting = true;
        for (Path d : OPEN) {
            SegmentFiles.deleteOwnIn(d);
            removeDead(d);
        }
    }
}
