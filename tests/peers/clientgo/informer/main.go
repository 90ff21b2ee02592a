// A real client-go informer per resource, logging as JSON lines on standard output:
//
//	{"event":"request","method":"GET","path":"/api/v1/configmaps","query":"limit=500&..."}
//	{"event":"response","path":...,"status":200}
//	{"event":"synced","resource":"configmaps","objects":12}
//	{"event":"count","resource":"configmaps","objects":14,"added":3,"updated":9,"deleted":1}
//
// Flags: --kubeconfig PATH [--namespace NS] --resources configmaps,leases.coordination.k8s.io
// [--duration 30s] [--count-every 1s]. Resources are named as kubectl names them
// (plural[.group]); each gets a dynamic shared informer, so any resource works. It stops on
// SIGTERM/SIGINT or after --duration, printing a last count of each resource.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
)

var out = struct {
	sync.Mutex
	enc *json.Encoder
}{enc: json.NewEncoder(os.Stdout)}

func emit(fields map[string]any) {
	fields["t"] = time.Now().UTC().Format(time.RFC3339Nano)
	out.Lock()
	defer out.Unlock()
	_ = out.enc.Encode(fields)
}

// loggingTransport logs every request the informer's REST client sends and every answer's status,
// so retries and the reflector's request shapes are visible.
type loggingTransport struct{ next http.RoundTripper }

func (l loggingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	emit(map[string]any{"event": "request", "method": r.Method, "path": r.URL.Path, "query": r.URL.RawQuery})
	resp, err := l.next.RoundTrip(r)
	if err != nil {
		emit(map[string]any{"event": "response", "path": r.URL.Path, "error": err.Error()})
		return resp, err
	}
	emit(map[string]any{"event": "response", "path": r.URL.Path, "status": resp.StatusCode,
		"contentType": resp.Header.Get("Content-Type"), "retryAfter": resp.Header.Get("Retry-After")})
	return resp, nil
}

type counts struct {
	added, updated, deleted atomic.Int64
}

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig file")
	namespace := flag.String("namespace", "", "only this namespace (default: all)")
	resources := flag.String("resources", "", "comma-separated resources, as kubectl names them")
	duration := flag.Duration("duration", 0, "stop after this long (default: until a signal)")
	countEvery := flag.Duration("count-every", time.Second, "how often to print each resource's count")
	flag.Parse()
	if *kubeconfig == "" || *resources == "" {
		fmt.Fprintln(os.Stderr, "informer: --kubeconfig and --resources are required")
		os.Exit(2)
	}
	config, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fmt.Fprintln(os.Stderr, "informer:", err)
		os.Exit(1)
	}
	config.QPS, config.Burst = -1, 0 // the reflector's own pacing only
	config.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { return loggingTransport{rt} }

	disco, err := discovery.NewDiscoveryClientForConfig(config)
	if err != nil {
		fmt.Fprintln(os.Stderr, "informer:", err)
		os.Exit(1)
	}
	groups, err := restmapper.GetAPIGroupResources(disco)
	if err != nil && len(groups) == 0 {
		fmt.Fprintln(os.Stderr, "informer: discovery:", err)
		os.Exit(1)
	}
	mapper := restmapper.NewDiscoveryRESTMapper(groups)
	client, err := dynamic.NewForConfig(config)
	if err != nil {
		fmt.Fprintln(os.Stderr, "informer:", err)
		os.Exit(1)
	}

	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer cancel()
	if *duration > 0 {
		ctx, cancel = context.WithTimeout(ctx, *duration)
		defer cancel()
	}

	factory := dynamicinformer.NewFilteredDynamicSharedInformerFactory(client, 0, *namespace, nil)
	type watched struct {
		name     string
		informer cache.SharedIndexInformer
		counts   *counts
	}
	var all []watched
	for _, name := range strings.Split(*resources, ",") {
		gvr, err := mapper.ResourceFor(schema.ParseGroupResource(strings.TrimSpace(name)).WithVersion(""))
		if err != nil {
			fmt.Fprintf(os.Stderr, "informer: %s: %v\n", name, err)
			os.Exit(1)
		}
		w := watched{name: name, informer: factory.ForResource(gvr).Informer(), counts: &counts{}}
		c := w.counts
		addEventHandler(w.informer, cache.ResourceEventHandlerFuncs{
			AddFunc:    func(any) { c.added.Add(1) },
			UpdateFunc: func(any, any) { c.updated.Add(1) },
			DeleteFunc: func(any) { c.deleted.Add(1) },
		})
		all = append(all, w)
	}
	factory.Start(ctx.Done())
	for _, w := range all {
		go func(w watched) {
			if cache.WaitForCacheSync(ctx.Done(), w.informer.HasSynced) {
				emit(map[string]any{"event": "synced", "resource": w.name, "objects": len(w.informer.GetStore().ListKeys())})
			}
		}(w)
	}
	printCounts := func() {
		for _, w := range all {
			emit(map[string]any{"event": "count", "resource": w.name, "objects": len(w.informer.GetStore().ListKeys()),
				"added": w.counts.added.Load(), "updated": w.counts.updated.Load(), "deleted": w.counts.deleted.Load(),
				"synced": w.informer.HasSynced(), "lastSyncResourceVersion": w.informer.LastSyncResourceVersion()})
		}
	}
	ticker := time.NewTicker(*countEvery)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			printCounts()
			shutdown(factory)
			return
		case <-ticker.C:
			printCounts()
		}
	}
}
