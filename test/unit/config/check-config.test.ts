// What `check-config` prints of a connection string, through the real command line: the
// deployment on stdout, a configuration error on stderr. No secret of the URI in either.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { promisify } from "node:util";

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

async function checkConfig(env: Record<string, string>): Promise<Outcome> {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(MONGODB_URI|NODE_ENV|SIDECAR_)/.test(name)),
  );
  const args = ["--conditions=source", "--import", "tsx", "src/main.ts", "check-config"];
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, args, {
      env: { ...clean, ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
    return { code, stdout, stderr };
  }
}

void test("check-config prints a password holding a raw space masked whole", async () => {
  const { code, stdout } = await checkConfig({
    MONGODB_URI: "mongodb://admin:pa ss@h1,h2/shop?replicaSet=rs0",
  });
  assert.equal(code, 0);
  assert.match(stdout, /^deployment: mongodb:\/\/admin:\*\*\*\*@h1,h2\/shop\?replicaSet=rs0$/m);
  assert.doesNotMatch(stdout, /pa ss|pa%20ss/);
});

void test("a configuration error quoting a URI with a raw space in its password masks it whole on stderr", async () => {
  const { code, stderr } = await checkConfig({ MONGODB_URI: "mongdb://admin:pa ss@host/shop" });
  assert.equal(code, 2);
  assert.match(stderr, /got "mongdb:\/\/admin:\*\*\*\*@host\/shop"/);
  assert.doesNotMatch(stderr, /ss@/);
});

void test("check-config prints the TLS key's and the proxy's passwords masked", async () => {
  const uri =
    "mongodb://admin:s3cret@host/shop?tls=true&tlsCertificateKeyFilePassword=kp0&proxyHost=p&proxyUsername=u&proxyPassword=pp0";
  const { code, stdout } = await checkConfig({ MONGODB_URI: uri });
  assert.equal(code, 0);
  assert.match(
    stdout,
    /^deployment: mongodb:\/\/admin:\*\*\*\*@host\/shop\?tls=true&tlsCertificateKeyFilePassword=\*\*\*\*&proxyHost=p&proxyUsername=u&proxyPassword=\*\*\*\*$/m,
  );
  assert.doesNotMatch(stdout, /kp0|pp0/);
});

void test("a configuration error quoting a URI does not show its TLS key's password on stderr", async () => {
  const { code, stderr } = await checkConfig({
    MONGODB_URI: "mongdb://host/shop?tlsCertificateKeyFilePassword=kp0",
  });
  assert.equal(code, 2);
  assert.match(stderr, /mongdb:\/\/host\/shop\?tlsCertificateKeyFilePassword=\*\*\*\*/);
  assert.doesNotMatch(stderr, /kp0/);
});
