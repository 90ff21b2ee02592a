// Writes ConfigMaps through the apiserver at a fixed rate, as a busy controller would: creates,
// updates and deletes in turn over a pool of names, from a few goroutines. Prints one JSON line
// at the end: {"creates":N,"updates":N,"deletes":N,"errors":N,"seconds":S,"lastError":"..."}.
//
// Flags: --kubeconfig PATH --namespace NS [--rate 200] [--duration 2m] [--objects 200]
// [--workers 8]. Stops early on SIGTERM/SIGINT, still printing its line.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig file")
	namespace := flag.String("namespace", "default", "namespace of the ConfigMaps")
	rate := flag.Float64("rate", 200, "writes a second")
	duration := flag.Duration("duration", 2*time.Minute, "how long to write")
	objects := flag.Int("objects", 200, "how many names to cycle through")
	workers := flag.Int("workers", 8, "concurrent writers")
	flag.Parse()
	config, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fmt.Fprintln(os.Stderr, "writer:", err)
		os.Exit(1)
	}
	config.QPS, config.Burst = -1, 0
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		fmt.Fprintln(os.Stderr, "writer:", err)
		os.Exit(1)
	}
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, *duration)
	defer cancel()

	var creates, updates, deletes, errors atomic.Int64
	var lastError atomic.Value
	lastError.Store("")
	// Each name goes create -> update -> update -> delete, so a quarter of the writes are
	// creates, half updates and a quarter deletes.
	type slot struct {
		sync.Mutex
		step int
	}
	slots := make([]slot, *objects)
	ticks := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < *workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cms := client.CoreV1().ConfigMaps(*namespace)
			for i := range ticks {
				s := &slots[i%len(slots)]
				s.Lock()
				name := fmt.Sprintf("load-%04d", i%len(slots))
				var err error
				switch s.step % 4 {
				case 0:
					_, err = cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name},
						Data: map[string]string{"n": fmt.Sprint(i)}}, metav1.CreateOptions{})
					if err == nil {
						creates.Add(1)
					}
				case 1, 2:
					var cm *corev1.ConfigMap
					cm, err = cms.Get(ctx, name, metav1.GetOptions{})
					if err == nil {
						cm.Data = map[string]string{"n": fmt.Sprint(i)}
						_, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
					}
					if err == nil {
						updates.Add(1)
					}
				case 3:
					err = cms.Delete(ctx, name, metav1.DeleteOptions{})
					if err == nil {
						deletes.Add(1)
					}
				}
				if err != nil && ctx.Err() == nil {
					errors.Add(1)
					lastError.Store(err.Error())
				}
				s.step++
				s.Unlock()
			}
		}()
	}
	start := time.Now()
	interval := time.Duration(float64(time.Second) / *rate)
	next := start
	for i := 0; ; i++ {
		next = next.Add(interval)
		if d := time.Until(next); d > 0 {
			select {
			case <-ctx.Done():
			case <-time.After(d):
			}
		}
		if ctx.Err() != nil {
			break
		}
		select {
		case ticks <- i:
		case <-ctx.Done():
		}
	}
	close(ticks)
	wg.Wait()
	_ = json.NewEncoder(os.Stdout).Encode(map[string]any{
		"creates": creates.Load(), "updates": updates.Load(), "deletes": deletes.Load(),
		"errors": errors.Load(), "seconds": time.Since(start).Seconds(), "lastError": lastError.Load(),
	})
}
