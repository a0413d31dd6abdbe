@cap:replicas
Feature: Instances that share one database agree at once
  A deployment may run several instances of the metadata service over one database.
  A change made through one of them, revoking a token or taking a privilege away,
  holds on every other within 200 milliseconds: an instance that keeps tokens or
  policies in memory must learn of the change, not wait for what it holds to expire.
  DataHub caches both (policies for up to two minutes, a token's revocation for up
  to five), so these are recommendations beyond DataHub, which the reference follows.
  Each scenario first checks that the other instance still grants what is about to
  be taken away, so that a refusal afterwards is the change and not a setup fault.

  @id:replica-01 @should @core @cap:tokens
  Scenario: A token revoked through one instance is refused by another
    Given Ann holds a personal access token
    And Ann's token works on the other instance
    When the administrator revokes Ann's token
    Then 200 milliseconds later, Ann's token is refused by the other instance

  @id:replica-02 @should @core @cap:policies
  Scenario Outline: A privilege whose policy <is changed> through one instance is gone on another
    Given Ann holds a personal access token
    And Ann is granted CREATE_TAGS
    And Ann can create a tag through the other instance
    When the policy granting Ann CREATE_TAGS <is changed>
    Then 200 milliseconds later, Ann cannot create a tag through the other instance

    Examples:
      | is changed      |
      | is set INACTIVE |
      | is deleted      |
