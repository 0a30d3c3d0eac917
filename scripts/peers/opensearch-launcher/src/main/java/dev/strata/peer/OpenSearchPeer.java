package dev.strata.peer;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.opensearch.analysis.common.CommonAnalysisPlugin;
import org.opensearch.common.logging.LogConfigurator;
import org.opensearch.common.settings.Settings;
import org.opensearch.env.Environment;
import org.opensearch.geo.GeoModulePlugin;
import org.opensearch.index.mapper.MapperExtrasPlugin;
import org.opensearch.index.reindex.ReindexPlugin;
import org.opensearch.join.ParentJoinPlugin;
import org.opensearch.node.InternalSettingsPreparer;
import org.opensearch.node.Node;
import org.opensearch.painless.PainlessPlugin;
import org.opensearch.percolator.PercolatorPlugin;
import org.opensearch.plugins.Plugin;
import org.opensearch.transport.Netty4Plugin;

/**
 * A single-node OpenSearch started in this JVM, with the module plugins a
 * distribution bundles that Strata's search front end is compared against
 * (Netty4 HTTP, analysis-common, geo, painless, reindex, mapper-extras,
 * parent-join, percolator). The distribution's own launcher is not needed:
 * {@link Node}'s protected constructor takes the plugin classes.
 *
 * <p>Usage: {@code OpenSearchPeer HTTP_PORT TRANSPORT_PORT DATA_DIR}. Binds
 * 127.0.0.1 only; prints {@code opensearch peer started on port N} once the
 * HTTP port answers, and closes the node on SIGTERM.
 */
public final class OpenSearchPeer {
    private static final Collection<Class<? extends Plugin>> PLUGINS = List.of(
        Netty4Plugin.class,
        CommonAnalysisPlugin.class,
        GeoModulePlugin.class,
        PainlessPlugin.class,
        ReindexPlugin.class,
        MapperExtrasPlugin.class,
        ParentJoinPlugin.class,
        PercolatorPlugin.class);

    /** Node's constructor is protected: this subclass only makes it reachable. */
    private static final class PeerNode extends Node {
        PeerNode(Environment environment) {
            super(environment, PLUGINS, true);
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: OpenSearchPeer HTTP_PORT TRANSPORT_PORT DATA_DIR");
            System.exit(2);
        }
        Path home = Path.of(args[2]).toAbsolutePath();
        Path data = home.resolve("data");
        Path logs = home.resolve("logs");
        Files.createDirectories(data);
        Files.createDirectories(logs);
        Settings settings = Settings.builder()
            .put("path.home", home.toString())
            .put("path.data", data.toString())
            .put("path.logs", logs.toString())
            .put("cluster.name", "strata-peer")
            .put("node.name", "opensearch-peer")
            .put("discovery.type", "single-node")
            .put("network.host", "127.0.0.1")
            .put("http.port", args[0])
            .put("transport.port", args[1])
            // A shared development disk is often above the 85-95% watermarks:
            // without this, new indices would get no shard allocated.
            .put("cluster.routing.allocation.disk.threshold_enabled", false)
            .put("http.type", "netty4")
            .put("transport.type", "netty4")
            .build();
        LogConfigurator.registerErrorListener();
        LogConfigurator.configureWithoutConfig(settings);
        Environment environment = InternalSettingsPreparer.prepareEnvironment(
            settings, Map.of(), home.resolve("config"), () -> "opensearch-peer");
        Node node = new PeerNode(environment);
        CountDownLatch closed = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                node.close();
                node.awaitClose(30, TimeUnit.SECONDS);
            } catch (Exception e) {
                e.printStackTrace();
            } finally {
                closed.countDown();
            }
        }, "opensearch-peer-close"));
        node.start();
        System.out.println("opensearch peer started on port " + args[0]);
        System.out.flush();
        closed.await();
    }
}
