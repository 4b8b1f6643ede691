/*
 * The widget page's script (served from our origin; the page's CSP allows nothing else).
 * Every text that came from a workflow, a vendor, a model or a user is written with textContent.
 */
(function () {
  'use strict';
  var root = document.getElementById('widget');
  if (!root || root.getAttribute('data-kind') === 'error') return;
  var kind = root.getAttribute('data-kind');
  var bundle = root.getAttribute('data-bundle');
  var item = root.getAttribute('data-item');
  var $ = function (id) {
    return document.getElementById(id);
  };

  // The host page's origin: the browser's own word when it gives one, else the loader's.
  var params = new URLSearchParams(window.location.search);
  var ancestors = window.location.ancestorOrigins;
  var origin =
    ancestors && ancestors.length ? ancestors[0] : params.get('origin') || sessionStorage.getItem('embed:origin') || '';
  if (origin) sessionStorage.setItem('embed:origin', origin);
  var storeKey = 'embed:token:' + bundle;
  var session = null;
  try {
    session = JSON.parse(sessionStorage.getItem(storeKey) || 'null');
  } catch {
    session = null;
  }
  if (session && Date.parse(session.expires_at) <= Date.now()) session = null;

  function requestId() {
    var b = new Uint8Array(16);
    crypto.getRandomValues(b);
    return Array.prototype.map
      .call(b, function (x) {
        return ('0' + x.toString(16)).slice(-2);
      })
      .join('');
  }

  function call(method, path, body) {
    var headers = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (session) headers.authorization = 'Bearer ' + session.token;
    return fetch(path, {
      method: method,
      headers: headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'omit',
    }).then(function (res) {
      return res
        .json()
        .catch(function () {
          return {};
        })
        .then(function (json) {
          if (res.ok && json.success !== false) return json.data;
          if (res.status === 401 && session) forget();
          var msg =
            (json && (json.message || (json.error && json.error.message) || json.detail || json.error)) ||
            'request failed (' + res.status + ')';
          throw new Error(typeof msg === 'string' ? msg : 'request failed (' + res.status + ')');
        });
    });
  }

  function show(el, text) {
    el.textContent = text;
    el.hidden = !text;
  }

  function shortAddress(a) {
    return a.slice(0, 6) + '…' + a.slice(-4);
  }

  function setSignedIn(on) {
    var who = $('who');
    if (on) who.textContent = 'Signed in as ' + shortAddress(session.wallet);
    else who.textContent = 'Not signed in.';
    $('wallet-sign-in').hidden = on;
    var controls = document.querySelectorAll('#message, #send, .pay');
    for (var i = 0; i < controls.length; i++) controls[i].disabled = !on;
    if (!on) {
      show($('balance'), '');
      $('buy-row').hidden = true;
    }
  }

  // Short: below the cheapest action of a product page. Buying needs the wallet itself (x402).
  var prices = Array.prototype.map.call(document.querySelectorAll('form.action'), function (f) {
    return Number(f.getAttribute('data-credits'));
  });
  function showBalance(balance) {
    show($('balance'), 'Balance: ' + balance + ' credits');
    var short = prices.length > 0 && balance < Math.min.apply(null, prices);
    $('buy-row').hidden = !(short && session && session.via === 'siwe' && window.ethereum);
  }

  function remember(data) {
    session = { token: data.token, wallet: data.wallet, via: data.via, expires_at: data.expires_at };
    sessionStorage.setItem(storeKey, JSON.stringify(session));
    setSignedIn(true);
    showBalance(data.balance);
  }

  function forget() {
    session = null;
    sessionStorage.removeItem(storeKey);
    setSignedIn(false);
  }

  function utf8Hex(text) {
    var bytes = new TextEncoder().encode(text);
    var out = '0x';
    for (var i = 0; i < bytes.length; i++) out += ('0' + bytes[i].toString(16)).slice(-2);
    return out;
  }

  function walletSignIn() {
    var eth = window.ethereum;
    show($('signin-error'), '');
    if (!eth || typeof eth.request !== 'function') {
      show($('signin-error'), 'No wallet found in this browser. Paste an access token instead.');
      return;
    }
    var address;
    eth
      .request({ method: 'eth_requestAccounts' })
      .then(function (accounts) {
        address = accounts[0];
        return eth.request({ method: 'eth_chainId' }).catch(function () {
          return '0x1';
        });
      })
      .then(function (chainId) {
        return call('POST', '/embed/api/sign-in/nonce', {
          bundle_id: bundle,
          origin: origin,
          address: address,
          chain_id: parseInt(chainId, 16) || 1,
        });
      })
      .then(function (n) {
        return eth
          .request({ method: 'personal_sign', params: [utf8Hex(n.message), address] })
          .then(function (signature) {
            return call('POST', '/embed/api/sign-in', { message: n.message, signature: signature });
          });
      })
      .then(remember)
      .catch(function (err) {
        show($('signin-error'), err.message || String(err));
      });
  }

  function tokenSignIn() {
    show($('signin-error'), '');
    var value = $('access-token').value.trim();
    call('POST', '/embed/api/sign-in/access-token', { bundle_id: bundle, origin: origin, access_token: value })
      .then(function (data) {
        $('access-token').value = '';
        remember(data);
      })
      .catch(function (err) {
        show($('signin-error'), err.message);
      });
  }

  function hex32() {
    var b = new Uint8Array(32);
    crypto.getRandomValues(b);
    return (
      '0x' +
      Array.prototype.map
        .call(b, function (x) {
          return ('0' + x.toString(16)).slice(-2);
        })
        .join('')
    );
  }

  function purchase(body, header) {
    var headers = { 'content-type': 'application/json', accept: 'application/json' };
    if (header) headers['PAYMENT-SIGNATURE'] = header;
    return fetch('/api/external/credits/purchase', {
      method: 'POST',
      headers: headers,
      body: JSON.stringify(body),
      credentials: 'omit',
    }).then(function (res) {
      return res
        .json()
        .catch(function () {
          return {};
        })
        .then(function (json) {
          return { status: res.status, body: json };
        });
    });
  }

  /**
   * 500 credits over x402 (docs/x402.md): the service's 402 challenge, an EIP-3009 transfer
   * authorization signed by the wallet (eth_signTypedData_v4), the same request again with it.
   */
  function buyCredits() {
    var eth = window.ethereum;
    var status = $('buy-status');
    var from, chainId, body;
    $('buy').disabled = true;
    status.textContent = 'Asking the wallet…';
    eth
      .request({ method: 'eth_requestAccounts' })
      .then(function (accounts) {
        from = accounts[0];
        if (from.toLowerCase() !== session.wallet)
          throw new Error('the wallet now has another account than the one signed in');
        return eth.request({ method: 'eth_chainId' });
      })
      .then(function (hex) {
        chainId = parseInt(hex, 16);
        body = {
          wallet_address: session.wallet,
          credits: 500,
          payment_method: 'x402',
          chain_id: chainId,
          token: 'USDC',
          request_id: 'emb-' + requestId(),
        };
        return purchase(body);
      })
      .then(function (r) {
        if (r.status !== 402 || !r.body.accepts)
          throw new Error(r.body.message || 'credits cannot be bought on this chain');
        var req = r.body.accepts.filter(function (a) {
          return a.network === 'eip155:' + chainId;
        })[0];
        if (!req) throw new Error('no USDC payment offered on this chain');
        var authorization = {
          from: from,
          to: req.payTo,
          value: req.amount,
          validAfter: '0',
          validBefore: String(Math.floor(Date.now() / 1000) + req.maxTimeoutSeconds),
          nonce: hex32(),
        };
        var typed = {
          types: {
            EIP712Domain: [
              { name: 'name', type: 'string' },
              { name: 'version', type: 'string' },
              { name: 'chainId', type: 'uint256' },
              { name: 'verifyingContract', type: 'address' },
            ],
            TransferWithAuthorization: [
              { name: 'from', type: 'address' },
              { name: 'to', type: 'address' },
              { name: 'value', type: 'uint256' },
              { name: 'validAfter', type: 'uint256' },
              { name: 'validBefore', type: 'uint256' },
              { name: 'nonce', type: 'bytes32' },
            ],
          },
          domain: { name: req.extra.name, version: req.extra.version, chainId: chainId, verifyingContract: req.asset },
          primaryType: 'TransferWithAuthorization',
          message: authorization,
        };
        status.textContent = 'Sign the payment of ' + Number(req.amount) / 1e6 + ' USDC in the wallet…';
        return eth
          .request({ method: 'eth_signTypedData_v4', params: [from, JSON.stringify(typed)] })
          .then(function (signature) {
            return btoa(
              JSON.stringify({
                x402Version: 2,
                payload: { authorization: authorization, signature: signature },
                resource: r.body.resource,
                accepted: req,
              }),
            );
          });
      })
      .then(function (header) {
        status.textContent = 'Paying…';
        var deadline = Date.now() + 90000;
        var attempt = function () {
          return purchase(body, header).then(function (r) {
            if (r.status === 200) return r.body;
            var settling = r.status === 202 || (r.status === 409 && r.body.error_code === 'payment_in_progress');
            if (settling && Date.now() < deadline)
              return new Promise(function (ok) {
                setTimeout(ok, 1000);
              }).then(attempt);
            throw new Error(r.body.message || r.body.error || 'the payment was refused (' + r.status + ')');
          });
        };
        return attempt();
      })
      .then(function () {
        status.textContent = 'Bought 500 credits.';
        return refreshBalance();
      })
      .catch(function (err) {
        status.textContent = 'Not bought: ' + (err.message || String(err));
      })
      .then(function () {
        $('buy').disabled = false;
      });
  }

  function refreshBalance() {
    return call('GET', '/embed/api/bundles/' + bundle + '/me').then(function (d) {
      showBalance(d.balance);
    });
  }

  // Chat: each message is a run of the workflow; its entry shows the status, then the answer.
  function addEntry(who, text) {
    var li = document.createElement('li');
    li.className = who;
    var body = document.createElement('span');
    body.className = 'text';
    body.textContent = text;
    li.appendChild(body);
    $('log').appendChild(li);
    li.scrollIntoView({ block: 'end' });
    return li;
  }

  function setStatus(li, status) {
    li.setAttribute('data-status', status);
  }

  function poll(li, runId) {
    return call('GET', '/embed/api/bundles/' + bundle + '/runs/' + runId).then(function (run) {
      setStatus(li, run.status);
      if (!run.done) {
        li.firstChild.textContent = run.status === 'queued' ? 'Queued…' : 'Working…';
        return new Promise(function (r) {
          setTimeout(r, 400);
        }).then(function () {
          return poll(li, runId);
        });
      }
      if (run.status === 'completed') li.firstChild.textContent = run.response_text || '';
      else
        li.firstChild.textContent = 'The run ended ' + run.status + (run.error_message ? ': ' + run.error_message : '');
    });
  }

  function send() {
    var box = $('message');
    var text = box.value.trim();
    if (!text) return;
    box.value = '';
    addEntry('user', text);
    var reply = addEntry('bot', 'Sending…');
    setStatus(reply, 'sending');
    call('POST', '/embed/api/bundles/' + bundle + '/workflows/' + item + '/messages', {
      text: text,
      request_id: requestId(),
    })
      .then(function (run) {
        return poll(reply, run.run_id);
      })
      .catch(function (err) {
        setStatus(reply, 'failed');
        reply.firstChild.textContent = 'Not sent: ' + err.message;
      });
  }

  // Product: the form's fields typed as the action's schema says; the call is paid in credits.
  function collect(form) {
    var out = {};
    var inputs = form.querySelectorAll('[data-input]');
    for (var i = 0; i < inputs.length; i++) {
      var el = inputs[i];
      var type = el.getAttribute('data-input');
      if (type === 'checkbox') {
        out[el.name] = el.checked;
        continue;
      }
      var v = el.value;
      if (v === '' && !el.getAttribute('data-required')) continue;
      if (type === 'number' || type === 'integer') out[el.name] = Number(v);
      else if (type === 'json') out[el.name] = JSON.parse(v);
      else out[el.name] = v;
    }
    return out;
  }

  function invoke(form, event) {
    event.preventDefault();
    var result = form.querySelector('.result');
    var button = form.querySelector('.pay');
    var parameters;
    try {
      parameters = collect(form);
    } catch {
      show(result, 'A JSON field is not valid JSON.');
      return;
    }
    button.disabled = true;
    show(result, 'Paying ' + form.getAttribute('data-credits') + ' credits…');
    call('POST', '/embed/api/bundles/' + bundle + '/products/' + item + '/invoke', {
      action: form.getAttribute('data-action'),
      parameters: parameters,
      request_id: requestId(),
    })
      .then(function (d) {
        show(result, 'Charged ' + d.credits_charged + ' credits.\n' + JSON.stringify(d.response, null, 2));
        showBalance(d.balance);
      })
      .catch(function (err) {
        show(result, 'Not charged: ' + err.message);
      })
      .then(function () {
        button.disabled = !session;
      });
  }

  $('wallet-sign-in').addEventListener('click', walletSignIn);
  $('token-sign-in').addEventListener('click', tokenSignIn);
  $('buy').addEventListener('click', buyCredits);
  if (kind === 'workflow') {
    $('send').addEventListener('click', send);
    $('message').addEventListener('keydown', function (e) {
      if (e.key === 'Enter' && !e.shiftKey) {
        e.preventDefault();
        send();
      }
    });
  }
  if (kind === 'product') {
    var forms = document.querySelectorAll('form.action');
    for (var i = 0; i < forms.length; i++) forms[i].addEventListener('submit', invoke.bind(null, forms[i]));
  }
  if (kind === 'bundle' && origin) {
    var links = document.querySelectorAll('a.pick');
    for (var j = 0; j < links.length; j++) links[j].href += '&origin=' + encodeURIComponent(origin);
  }
  var back = $('back');
  if (back && origin) back.href += '?origin=' + encodeURIComponent(origin);

  setSignedIn(!!session);
  if (session) refreshBalance().catch(function () {});
  root.setAttribute('data-ready', '1');
})();
