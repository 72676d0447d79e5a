// Proves the page's script loaded; the light example serves it like any static asset.
const status = document.getElementById("status");
if (status) status.textContent = `Script loaded at ${new Date().toLocaleTimeString()}.`;
