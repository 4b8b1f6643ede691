// Command ferretdb runs FerretDB 1.x (MongoDB wire protocol) on PostgreSQL for local
// development, tests and benchmarks, where no mongod binary can be downloaded.
package main

import (
	"context"
	"flag"
	"log"
	"log/slog"
	"net/http"
	_ "net/http/pprof" // served only with -debug-addr
	"os"
	"os/signal"
	"syscall"

	"github.com/FerretDB/FerretDB/ferretdb"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:27017", "TCP address to listen on")
	pgURL := flag.String("postgresql-url", "postgres://postgres@127.0.0.1:5432/postgres", "PostgreSQL connection URL")
	debugAddr := flag.String("debug-addr", "", "serve Go pprof profiles (/debug/pprof/) on this address; off when empty")
	flag.Parse()
	if *debugAddr != "" {
		go func() { log.Println(http.ListenAndServe(*debugAddr, nil)) }()
	}

	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	f, err := ferretdb.New(&ferretdb.Config{
		Listener:  ferretdb.ListenerConfig{TCP: *listen},
		Logger:    logger,
		Handler:       "postgresql",
		PostgreSQLURL: *pgURL,
	})
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	log.Printf("ferretdb listening on %s (postgresql)", *listen)
	if err := f.Run(ctx); err != nil && ctx.Err() == nil {
		log.Fatal(err)
	}
}
