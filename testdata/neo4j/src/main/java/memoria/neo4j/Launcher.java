package memoria.neo4j;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.neo4j.configuration.GraphDatabaseInternalSettings;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.connectors.HttpsConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.harness.Neo4j;
import org.neo4j.harness.Neo4jBuilder;
import org.neo4j.harness.Neo4jBuilders;
import org.neo4j.io.ByteUnit;

/**
 * Starts a real in-process Neo4j 5 (Community) server via the official neo4j-harness,
 * Bolt only, on 127.0.0.1.
 *
 * <p>Stdout carries exactly one line, {@code bolt://127.0.0.1:PORT}, printed once the server
 * accepts connections; everything else goes to stderr or to log files in the temporary
 * working directory. The process shuts the server down cleanly (and removes its temporary
 * directory) on SIGTERM/SIGINT and when stdin reaches EOF (unless --no-stdin-watch).
 */
public final class Launcher {
    private static final String HOST = "127.0.0.1";

    private static final String USAGE = String.join("\n",
            "usage: java -Xmx512m -cp 'target/classes:target/dependency/*' memoria.neo4j.Launcher [flags]",
            "  --port N            Bolt port on 127.0.0.1 (0 or absent: a free port)",
            "  --auth USER:PASS    require authentication with this user/password (default: auth off)",
            "  --pagecache SIZE    page cache size, e.g. 64m (default 32m)",
            "  --data DIR          persistent data directory (default: temp dir removed on exit)",
            "  --work-dir DIR      parent of the temporary working directory (logs, default data)",
            "                      (default: java.io.tmpdir); the temp dir is removed on exit, and",
            "                      DIR too if that leaves it empty",
            "  --no-stdin-watch    keep running when stdin reaches EOF (for backgrounded runs)",
            "  --print-logs        copy Neo4j's logs (neo4j.log, debug.log) to stderr on exit",
            "  --help              this text");

    private final Object lock = new Object();
    private Path workDir;
    private Path workParent;
    private Neo4j neo4j;
    private boolean printLogs;
    private boolean stopped;

    public static void main(String[] args) {
        // Keep the real stdout for the single URI line; anything else that writes to
        // System.out (libraries, logging fallbacks) ends up on stderr.
        PrintStream uriOut = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        System.setOut(System.err);
        try {
            new Launcher().run(args, uriOut);
        } catch (UsageException e) {
            System.err.println("launcher: " + e.getMessage());
            System.err.println(USAGE);
            System.exit(2);
        } catch (Throwable t) {
            System.err.println("launcher: failed to start Neo4j: " + t);
            t.printStackTrace(System.err);
            System.exit(1);
        }
    }

    private void run(String[] args, PrintStream uriOut) throws Exception {
        int port = 0;
        String user = null;
        String password = null;
        long pageCache = ByteUnit.mebiBytes(32);
        Path dataDir = null;
        boolean watchStdin = true;

        for (int i = 0; i < args.length; i++) {
            String flag = args[i];
            String inline = null;
            int eq = flag.indexOf('=');
            if (flag.startsWith("--") && eq > 0) {
                inline = flag.substring(eq + 1);
                flag = flag.substring(0, eq);
            }
            switch (flag) {
                case "--port": {
                    String v = inline != null ? inline : next(args, ++i, flag);
                    try {
                        port = Integer.parseInt(v);
                    } catch (NumberFormatException e) {
                        throw new UsageException("--port: not a number: " + v);
                    }
                    if (port < 0 || port > 65535) throw new UsageException("--port: out of range: " + v);
                    break;
                }
                case "--auth": {
                    String v = inline != null ? inline : next(args, ++i, flag);
                    int c = v.indexOf(':');
                    if (c <= 0 || c == v.length() - 1) throw new UsageException("--auth: want USER:PASSWORD");
                    user = v.substring(0, c);
                    password = v.substring(c + 1);
                    break;
                }
                case "--pagecache": {
                    String v = inline != null ? inline : next(args, ++i, flag);
                    try {
                        pageCache = ByteUnit.parse(v);
                    } catch (RuntimeException e) {
                        throw new UsageException("--pagecache: bad size " + v + " (e.g. 64m)");
                    }
                    break;
                }
                case "--data": {
                    String v = inline != null ? inline : next(args, ++i, flag);
                    dataDir = Paths.get(v).toAbsolutePath();
                    break;
                }
                case "--work-dir": {
                    String v = inline != null ? inline : next(args, ++i, flag);
                    workParent = Paths.get(v).toAbsolutePath();
                    break;
                }
                case "--no-stdin-watch":
                    watchStdin = false;
                    break;
                case "--print-logs":
                    printLogs = true;
                    break;
                case "--help":
                case "-h":
                    System.err.println(USAGE);
                    System.exit(0);
                    return;
                default:
                    throw new UsageException("unknown flag: " + args[i]);
            }
        }

        if (workParent != null) {
            Files.createDirectories(workParent);
            workDir = Files.createTempDirectory(workParent, "memoria-neo4j-");
        } else {
            workDir = Files.createTempDirectory("memoria-neo4j-");
        }
        Runtime.getRuntime().addShutdownHook(new Thread(this::shutdown, "neo4j-launcher-shutdown"));

        Neo4jBuilder builder = Neo4jBuilders.newInProcessBuilder(workDir)
                .withDisabledServer() // no HTTP/HTTPS connectors
                .withConfig(HttpConnector.enabled, false)
                .withConfig(HttpsConnector.enabled, false)
                .withConfig(BoltConnector.enabled, true)
                .withConfig(BoltConnector.listen_address, new SocketAddress(HOST, port))
                .withConfig(BoltConnector.encryption_level, BoltConnector.EncryptionLevel.DISABLED)
                .withConfig(BoltConnector.thread_pool_min_size, 2)
                .withConfig(GraphDatabaseSettings.default_listen_address, new SocketAddress(HOST))
                .withConfig(GraphDatabaseSettings.default_advertised_address, new SocketAddress(HOST))
                // server-side routing would open another listener (default :7688).
                .withConfig(GraphDatabaseSettings.routing_enabled, false)
                .withConfig(GraphDatabaseSettings.routing_listen_address, new SocketAddress(HOST, 0))
                // nothing may reach the network
                .withConfig(GraphDatabaseSettings.udc_enabled, false)
                .withConfig(GraphDatabaseInternalSettings.udc_network_enabled, false)
                // small footprint
                .withConfig(GraphDatabaseSettings.pagecache_memory, pageCache)
                .withConfig(GraphDatabaseSettings.pagecache_warmup_enabled, false)
                .withConfig(GraphDatabaseSettings.preallocate_logical_logs, false)
                .withConfig(GraphDatabaseSettings.logical_log_rotation_threshold, ByteUnit.mebiBytes(16))
                .withConfig(GraphDatabaseSettings.keep_logical_logs, "2 files")
                // fast shutdown: Netty's default graceful quiet period makes close() take ~10 s
                .withConfig(GraphDatabaseInternalSettings.netty_server_shutdown_quiet_period, 0)
                .withConfig(GraphDatabaseInternalSettings.netty_server_shutdown_timeout, Duration.ofSeconds(2))
                .withConfig(GraphDatabaseSettings.auth_enabled, user != null)
                .withConfig(GraphDatabaseSettings.auth_minimum_password_length, 1)
                // no lock-out after repeated wrong passwords: tests get Unauthorized every time
                .withConfig(GraphDatabaseSettings.auth_max_failed_attempts, 0);
        if (dataDir != null) {
            Files.createDirectories(dataDir);
            builder = builder.withConfig(GraphDatabaseSettings.data_directory, dataDir);
        }

        Neo4j started;
        try {
            started = builder.build();
        } catch (Throwable t) {
            dumpLogs("startup failed");
            throw t;
        }
        synchronized (lock) {
            neo4j = started;
            if (stopped) { // SIGTERM arrived while starting
                closeQuietly();
                return;
            }
        }

        GraphDatabaseService db = started.defaultDatabaseService();
        if (!db.isAvailable(TimeUnit.SECONDS.toMillis(60))) {
            throw new IllegalStateException("database '" + db.databaseName() + "' did not become available");
        }
        if (user != null) {
            setUpUser(started, user, password);
        }

        int boltPort = started.boltURI().getPort();
        uriOut.println("bolt://" + HOST + ":" + boltPort);
        uriOut.flush();
        System.err.println("launcher: Neo4j ready on bolt://" + HOST + ":" + boltPort
                + (user != null ? " (auth: " + user + ")" : " (auth disabled)")
                + ", work dir " + workDir + (dataDir != null ? ", data " + dataDir : ""));

        CountDownLatch forever = new CountDownLatch(1);
        if (watchStdin) {
            Thread t = new Thread(() -> {
                byte[] buf = new byte[256];
                try {
                    InputStream in = System.in;
                    while (in.read(buf) >= 0) {
                        // discard
                    }
                } catch (IOException ignored) {
                    // treat as EOF
                }
                System.err.println("launcher: stdin closed, shutting down");
                System.exit(0);
            }, "neo4j-launcher-stdin");
            t.setDaemon(true);
            t.start();
        }
        forever.await();
    }

    /** Gives USER the password PASS (creating the user if it is not the built-in neo4j user). */
    private static void setUpUser(Neo4j server, String user, String password) {
        GraphDatabaseService system = server.databaseManagementService().database("system");
        Map<String, Object> params = Map.of("user", user, "password", password);
        boolean exists = system.executeTransactionally(
                "SHOW USERS YIELD user WHERE user = $user RETURN count(*) AS n", params,
                r -> ((Number) r.next().get("n")).longValue() > 0);
        if (!exists) {
            system.executeTransactionally(
                    "CREATE USER $user SET PLAINTEXT PASSWORD $password CHANGE NOT REQUIRED", params);
            return;
        }
        try {
            system.executeTransactionally(
                    "ALTER USER $user SET PLAINTEXT PASSWORD $password CHANGE NOT REQUIRED", params);
        } catch (RuntimeException e) {
            // A persistent --data dir may already hold this exact password; Neo4j refuses to
            // "change" a password to the same value, which is fine for us.
            String msg = String.valueOf(e.getMessage()) + " " + String.valueOf(e.getCause());
            if (!msg.toLowerCase().contains("same")) throw e;
            system.executeTransactionally("ALTER USER $user SET PASSWORD CHANGE NOT REQUIRED", params);
        }
    }

    private static String next(String[] args, int i, String flag) throws UsageException {
        if (i >= args.length) throw new UsageException(flag + " needs a value");
        return args[i];
    }

    private void shutdown() {
        synchronized (lock) {
            if (stopped) return;
            stopped = true;
            closeQuietly();
        }
    }

    private void closeQuietly() {
        if (neo4j != null) {
            if (printLogs) dumpLogs("shutdown");
            try {
                neo4j.close();
            } catch (Throwable t) {
                System.err.println("launcher: error closing Neo4j: " + t);
            }
            neo4j = null;
        }
        if (workDir != null) {
            deleteRecursively(workDir);
            if (workParent != null) {
                try {
                    Files.deleteIfExists(workParent); // only succeeds when empty
                } catch (IOException ignored) {
                    // not empty, or not ours to remove
                }
            }
        }
    }

    private void dumpLogs(String why) {
        if (workDir == null) return;
        try (Stream<Path> files = Files.walk(workDir)) {
            List<Path> logs = files.filter(p -> {
                String n = p.getFileName().toString();
                return n.equals("neo4j.log") || n.equals("debug.log");
            }).sorted().toList();
            for (Path p : logs) {
                System.err.println("----- " + p + " (" + why + ") -----");
                List<String> lines = Files.readAllLines(p, StandardCharsets.UTF_8);
                int from = Math.max(0, lines.size() - 400);
                for (String l : lines.subList(from, lines.size())) System.err.println(l);
            }
        } catch (IOException | RuntimeException e) {
            System.err.println("launcher: cannot read logs: " + e);
        }
    }

    private static void deleteRecursively(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException ignored) {
                    // best effort
                }
            });
        } catch (IOException ignored) {
            // already gone
        }
    }

    private static final class UsageException extends Exception {
        UsageException(String msg) {
            super(msg);
        }
    }
}
