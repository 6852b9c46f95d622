// A small client of the graphql-transport-ws protocol (the GraphQL WebSocket at /graphql). The
// socket is opened from this page, so the browser sends the session cookie with the upgrade. It
// reconnects with a growing pause when the connection drops, subscribes again, and tells the page
// (onReconnect) so it can read what it may have missed.

const PROTOCOL = 'graphql-transport-ws';

export class GraphqlSocket {
  constructor({ path = '/graphql', onReconnect = () => {}, onStatus = () => {} } = {}) {
    const scheme = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
    this.url = `${scheme}//${window.location.host}${path}`;
    this.onReconnect = onReconnect;
    this.onStatus = onStatus;
    this.subscriptions = new Map();
    this.nextId = 1;
    this.socket = null;
    this.acked = false;
    this.retries = 0;
    this.everConnected = false;
    this.closed = false;
  }

  /** Subscribes; handlers {next(data), error(errors), complete()}; answers a function that unsubscribes. */
  subscribe(query, variables, handlers) {
    const id = String(this.nextId++);
    this.subscriptions.set(id, { query, variables, handlers });
    if (this.acked) {
      this.send({ id, type: 'subscribe', payload: { query, variables } });
    } else {
      this.connect();
    }
    return () => {
      if (this.subscriptions.delete(id) && this.acked) {
        this.send({ id, type: 'complete' });
      }
    };
  }

  connect() {
    if (this.socket || this.closed) {
      return;
    }
    this.onStatus('connecting');
    const socket = new WebSocket(this.url, PROTOCOL);
    this.socket = socket;
    socket.addEventListener('open', () => this.send({ type: 'connection_init', payload: {} }));
    socket.addEventListener('message', (event) => this.receive(event.data));
    socket.addEventListener('close', () => this.dropped(socket));
    socket.addEventListener('error', () => {
      // a close event follows
    });
  }

  send(message) {
    if (this.socket && this.socket.readyState === WebSocket.OPEN) {
      this.socket.send(JSON.stringify(message));
    }
  }

  receive(text) {
    let message;
    try {
      message = JSON.parse(text);
    } catch (e) {
      return;
    }
    const sub = message.id ? this.subscriptions.get(message.id) : null;
    switch (message.type) {
      case 'connection_ack': {
        const again = this.everConnected;
        this.acked = true;
        this.everConnected = true;
        this.retries = 0;
        this.onStatus('live');
        for (const [id, s] of this.subscriptions) {
          this.send({ id, type: 'subscribe', payload: { query: s.query, variables: s.variables } });
        }
        if (again) {
          this.onReconnect();
        }
        break;
      }
      case 'ping':
        this.send({ type: 'pong' });
        break;
      case 'next':
        if (sub && sub.handlers.next) {
          sub.handlers.next(message.payload && message.payload.data, message.payload && message.payload.errors);
        }
        break;
      case 'error':
        if (sub) {
          this.subscriptions.delete(message.id);
          if (sub.handlers.error) {
            sub.handlers.error(message.payload);
          }
        }
        break;
      case 'complete':
        if (sub) {
          this.subscriptions.delete(message.id);
          if (sub.handlers.complete) {
            sub.handlers.complete();
          }
        }
        break;
      default:
    }
  }

  dropped(socket) {
    if (this.socket !== socket) {
      return;
    }
    this.socket = null;
    this.acked = false;
    if (this.closed) {
      return;
    }
    this.onStatus('offline');
    if (!this.subscriptions.size) {
      return; // connect again when someone subscribes
    }
    const pause = Math.min(30000, 1000 * 2 ** Math.min(this.retries, 5));
    this.retries++;
    window.setTimeout(() => this.connect(), pause);
  }

  close() {
    this.closed = true;
    if (this.socket) {
      this.socket.close(1000);
    }
  }
}
