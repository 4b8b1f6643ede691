/*
 * The embed loader: <script src="{base_url}/embed.js" data-workflow="wf_…"></script>
 * (or data-bundle="bnd_…", data-product="<product id>"; data-bundle beside the others picks
 * that bundle's settings; data-label names the button). Each tag gets a launcher button that
 * opens the widget in an iframe of {base_url}/embed/…. One global (AgentCommerceEmbed), and
 * every element and style lives in a shadow root, so the host page is neither touched nor restyled.
 */
(function () {
  'use strict';
  var NS = 'AgentCommerceEmbed';
  var api = window[NS];
  if (!api) {
    api = { version: 1, widgets: [], scan: null };
    window[NS] = api;
  }

  function mount(script) {
    script.setAttribute('data-embed-mounted', '1');
    var base = new URL(script.src, document.baseURI).origin;
    var wf = script.getAttribute('data-workflow');
    var product = script.getAttribute('data-product');
    var bundle = script.getAttribute('data-bundle');
    var path = wf
      ? '/embed/' + encodeURIComponent(wf)
      : product
        ? '/embed/product/' + encodeURIComponent(product)
        : '/embed/bundle/' + encodeURIComponent(bundle);
    var query = new URLSearchParams();
    if (bundle && (wf || product)) query.set('bundle', bundle);
    query.set('origin', window.location.origin);
    var src = base + path + '?' + query.toString();

    var host = document.createElement('div');
    host.setAttribute('data-agent-commerce-embed', wf || product || bundle);
    var root = host.attachShadow({ mode: 'open' });
    var css = document.createElement('link');
    css.rel = 'stylesheet';
    css.href = base + '/embed/assets/launcher.css';
    root.appendChild(css);
    var slot = api.widgets.length;
    host.style.setProperty('--embed-slot', String(slot));

    var panel = document.createElement('div');
    panel.className = 'panel';
    panel.hidden = true;
    var button = document.createElement('button');
    button.type = 'button';
    button.className = 'launcher';
    button.textContent = script.getAttribute('data-label') || 'Chat';
    button.setAttribute('aria-expanded', 'false');
    var frame = null;

    function open() {
      if (!frame) {
        frame = document.createElement('iframe');
        frame.src = src;
        frame.title = button.textContent;
        frame.setAttribute('referrerpolicy', 'no-referrer');
        panel.appendChild(frame);
      }
      panel.hidden = false;
      button.setAttribute('aria-expanded', 'true');
    }
    function close() {
      panel.hidden = true;
      button.setAttribute('aria-expanded', 'false');
    }
    button.addEventListener('click', function () {
      if (panel.hidden) open();
      else close();
    });
    root.appendChild(panel);
    root.appendChild(button);
    document.body.appendChild(host);
    var widget = {
      element: host,
      src: src,
      open: open,
      close: close,
      frame: function () {
        return frame;
      },
    };
    api.widgets.push(widget);
    return widget;
  }

  function scan() {
    var scripts = document.querySelectorAll('script[src]');
    for (var i = 0; i < scripts.length; i++) {
      var s = scripts[i];
      if (!/\/embed\.js(\?|#|$)/.test(s.getAttribute('src'))) continue;
      if (s.getAttribute('data-embed-mounted')) continue;
      if (!s.getAttribute('data-workflow') && !s.getAttribute('data-product') && !s.getAttribute('data-bundle'))
        continue;
      mount(s);
    }
  }
  api.scan = scan;

  if (document.body) scan();
  else document.addEventListener('DOMContentLoaded', scan);
})();
